//go:build unix && !linux

package tbtest

import "syscall"

func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
