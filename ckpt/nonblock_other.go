//go:build !unix

package ckpt

// oNonblock is 0 where there is no O_NONBLOCK: openRegular's Stat before
// the open is the only guard there.
const oNonblock = 0
