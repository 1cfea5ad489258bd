package capi

// The C library reports the cause of ABLOOM_ERR_IO in the C runtime's errno, the same numbers on
// every system (capi/abloom.h). On Windows a syscall.Errno is a Windows error code instead
// (ERROR_ACCESS_DENIED is 5, EACCES 13), so each errno is mapped to the syscall.E* value Go
// gives it there: errors.Is(err, fs.ErrNotExist), fs.ErrPermission and fs.ErrExist then hold as
// on other systems, and the message is the errno's.

/*
#include <errno.h>
*/
import "C"

import "syscall"

var errnoOfC = map[C.int]syscall.Errno{
	C.EPERM:        syscall.EPERM,
	C.ENOENT:       syscall.ENOENT,
	C.EIO:          syscall.EIO,
	C.ENXIO:        syscall.ENXIO,
	C.EBADF:        syscall.EBADF,
	C.EAGAIN:       syscall.EAGAIN,
	C.ENOMEM:       syscall.ENOMEM,
	C.EACCES:       syscall.EACCES,
	C.EBUSY:        syscall.EBUSY,
	C.EEXIST:       syscall.EEXIST,
	C.EXDEV:        syscall.EXDEV,
	C.ENODEV:       syscall.ENODEV,
	C.ENOTDIR:      syscall.ENOTDIR,
	C.EISDIR:       syscall.EISDIR,
	C.EINVAL:       syscall.EINVAL,
	C.ENFILE:       syscall.ENFILE,
	C.EMFILE:       syscall.EMFILE,
	C.EFBIG:        syscall.EFBIG,
	C.ENOSPC:       syscall.ENOSPC,
	C.EROFS:        syscall.EROFS,
	C.ENAMETOOLONG: syscall.ENAMETOOLONG,
	C.ENOSYS:       syscall.ENOSYS,
	C.ENOTEMPTY:    syscall.ENOTEMPTY,
	C.EILSEQ:       syscall.EILSEQ,
	C.ELOOP:        syscall.ELOOP,
	C.EOPNOTSUPP:   syscall.EOPNOTSUPP,
}

// goErrno is the syscall.Errno for the C errno e (0 for 0); an errno with no Go name stays as
// it is.
func goErrno(e C.int) syscall.Errno {
	if g, ok := errnoOfC[e]; ok {
		return g
	}
	return syscall.Errno(e)
}
