#ifndef MI_CMISYSTEM_H
#define MI_CMISYSTEM_H

/// Renames `from` to `to` (both relative to the current directory or absolute) and fails with
/// EEXIST instead of replacing an existing `to`. Returns 0 or -1 with errno set; errno is EINVAL
/// or ENOSYS where the file system or kernel cannot do it.
int mi_rename_noreplace(const char *from, const char *to);

#endif
