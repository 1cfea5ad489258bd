//go:build !windows

package capi

import "C"

import "syscall"

// goErrno is the syscall.Errno for the C errno e: the same numbers outside Windows
// (errno_windows.go maps them there).
func goErrno(e C.int) syscall.Errno { return syscall.Errno(e) }
