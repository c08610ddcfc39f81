//go:build !unix

package regfile

// oNonblock is 0 where there is no O_NONBLOCK: Open's Stat before
// the open is the only guard there.
const oNonblock = 0
