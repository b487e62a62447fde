// Package procgroup starts commands in a process group of their own and
// signals the whole group, so that what a command started (a build's
// compilers, a hook's background server, a shell pipeline) stops with it.
// It is the one place fledge does this: install runs hooks and build
// commands with it, and the runner its plugins and the commands they exec.
//
// On Unix a group is a process group (setpgid), and a signal sent to it
// reaches every process still in it, after its leader has exited too. On
// Windows a command gets a new process group, so the console's Ctrl+C
// does not reach it, and every signal ends the process itself: Windows has
// no SIGINT or SIGTERM to send another process.
//
// It does not decide when to signal: the runner's stop schedule and
// exec.Cmd's context cancellation do.
package procgroup
