#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cmisystem.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

int mi_rename_noreplace(const char *from, const char *to) {
#ifdef SYS_renameat2
    return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
#else
    errno = ENOSYS;
    return -1;
#endif
}

/* CRC-32C, reflected polynomial 0x82F63B78. */
static uint32_t crc32c_table[256];
static pthread_once_t crc32c_table_once = PTHREAD_ONCE_INIT;

static void crc32c_make_table(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t crc = i;
        for (int bit = 0; bit < 8; bit++) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
        crc32c_table[i] = crc;
    }
}

static uint32_t crc32c_table_driven(uint32_t crc, const unsigned char *p, size_t n) {
    pthread_once(&crc32c_table_once, crc32c_make_table);
    while (n--) crc = crc32c_table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc32c_instruction(uint32_t crc, const unsigned char *p, size_t n) {
    uint64_t c = crc;
    while (n > 0 && ((uintptr_t)p & 7) != 0) { c = __builtin_ia32_crc32qi((uint32_t)c, *p++); n--; }
    while (n >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = __builtin_ia32_crc32di(c, word);
        p += 8;
        n -= 8;
    }
    while (n > 0) { c = __builtin_ia32_crc32qi((uint32_t)c, *p++); n--; }
    return (uint32_t)c;
}
#endif

uint32_t mi_crc32c(uint32_t crc, const void *data, size_t length) {
    const unsigned char *p = data;
    crc = ~crc;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("sse4.2")) return ~crc32c_instruction(crc, p, length);
#endif
    return ~crc32c_table_driven(crc, p, length);
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int signal_number) {
    (void)signal_number;
    interrupted = 1;
}

int mi_catch_interrupts(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    return sigaction(SIGINT, &action, NULL);
}

int mi_was_interrupted(void) { return interrupted != 0; }

int mi_syncfs(int fd) {
    return syncfs(fd);
}
