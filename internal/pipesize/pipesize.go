// Package pipesize grows the kernel buffer of a pipe fledge writes to or
// reads from, so that a large or streaming output crosses it in fewer
// wakeups of the two processes at its ends. It owns only that hint: on
// platforms whose pipes cannot grow, and past the user's limits
// (fs.pipe-max-size, fs.pipe-user-pages-soft), pipes keep their size.
package pipesize

// Max is the largest capacity asked for: 1 MiB, Linux's default
// fs.pipe-max-size.
const Max = 1 << 20
