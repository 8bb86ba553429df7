#ifndef MI_CMISYSTEM_H
#define MI_CMISYSTEM_H

/// Renames `from` to `to` (both relative to the current directory or absolute) and fails with
/// EEXIST instead of replacing an existing `to`. Returns 0 or -1 with errno set; errno is EINVAL
/// or ENOSYS where the file system or kernel cannot do it.
int mi_rename_noreplace(const char *from, const char *to);

#include <stddef.h>
#include <stdint.h>

/// CRC-32C (Castagnoli) of `length` bytes, continuing from `crc` (0 to start): the checksum of a
/// resumable upload's chunk. Uses the CPU's CRC32 instruction (SSE 4.2) when there is one, a
/// table otherwise; both give the same value.
uint32_t mi_crc32c(uint32_t crc, const void *data, size_t length);

/// Ctrl-C during `mi fill`: installs a SIGINT handler that only sets a flag, without SA_RESTART,
/// so the blocked read(2) of the line editor (or of piped input) returns EINTR and the caller
/// regains control to save before it exits. Returns sigaction's result.
///
/// The flag lives in this C file, once per process: a flag in a header's static inline function
/// is copied into every object file that inlines it (an optimised build splits a module into one
/// object per source file), and the copy the exit status was read from never saw the signal.
int mi_catch_interrupts(void);

/// Whether SIGINT came since `mi_catch_interrupts`: 1 or 0.
int mi_was_interrupted(void);

/// Writes back every dirty page of the filesystem holding `fd` (syncfs(2)): one sync for a
/// restore's thousands of files instead of one fsync each. Returns 0 or -1 with errno set.
int mi_syncfs(int fd);

#endif
