//go:build unix

package regfile

import "syscall"

// oNonblock makes opening a named pipe return at once instead of waiting
// for a writer; it changes nothing for a regular file.
const oNonblock = syscall.O_NONBLOCK
