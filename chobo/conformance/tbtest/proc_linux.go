//go:build linux

package tbtest

import "syscall"

// childAttr also asks Linux to kill the replica when the test process dies
// without stopping it, so that a killed test leaves no replica behind.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
