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

#endif
