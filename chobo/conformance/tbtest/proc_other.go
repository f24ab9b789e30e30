//go:build !unix

package tbtest

import (
	"os/exec"
	"syscall"
)

func childAttr() *syscall.SysProcAttr { return nil }

func terminate(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

func kill(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
