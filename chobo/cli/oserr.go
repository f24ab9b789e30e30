package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/chobo-lang/chobo/chobo/diag"
)

// osReason says why a file could not be read or written, in both
// languages, without the path (the message names it already). The
// common causes get words of their own; any other keeps the system's
// text, which is all there is to say.
func osReason(err error) diag.Text {
	err = bare(err)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return diag.T("no such file or directory", "ファイルかディレクトリがありません")
	case errors.Is(err, fs.ErrPermission):
		return diag.T("permission denied", "権限がありません")
	case errors.Is(err, syscall.EISDIR):
		return diag.T("it is a directory", "ディレクトリです")
	case errors.Is(err, syscall.ENOTDIR):
		return diag.T("a part of the path is not a directory", "パスの途中がディレクトリではありません")
	case errors.Is(err, syscall.ENOSPC):
		return diag.T("no space left on the device", "デバイスに空きがありません")
	case errors.Is(err, syscall.EROFS):
		return diag.T("the file system is read-only", "読み取り専用のファイルシステムです")
	}
	return diag.T(err.Error(), fmt.Sprintf("システムのエラー: %v", err))
}

// cannotRead says that cmd could not read name, in both languages.
func cannotRead(cmd, name string, err error) diag.Text {
	why := osReason(err)
	prefix := ""
	if cmd != "" {
		prefix = "chobo " + cmd + ": "
	}
	return diag.T(fmt.Sprintf("%scannot read %s: %s", prefix, name, why.En),
		fmt.Sprintf("%s%s を読めません(%s)", prefix, name, why.Ja))
}
