//go:build !unix

package wasmhost

// oNonblock: there are no FIFOs to open here.
const oNonblock = 0
