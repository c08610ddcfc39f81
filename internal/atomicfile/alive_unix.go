//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// alive reports whether a process with this id exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
