//go:build unix

package tbtest

import (
	"os/exec"
	"syscall"
)

// The replica runs in a process group of its own, so that ending it also
// ends anything it started.

func terminate(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }

func kill(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
