// Package bounded reads files whose size and kind fledge does not control:
// its own state (config.toml, plugins.toml, caches), a plugin's tree and a
// project's files. It is the one place that opens such a file, so the rules
// hold everywhere:
//
//   - the open never blocks: it is made with O_NONBLOCK, so a named pipe
//     without a writer or a terminal device returns at once, and the file
//     is then checked with fstat (on what was opened, not on a name that
//     may have changed since) and refused unless it is a regular file;
//   - what is read is bounded: a file over the caller's limit is refused
//     after reading at most one byte more;
//   - where a file comes from decides how links are treated: state files
//     follow links (ReadFile), a plugin's manifest must not itself be one
//     (ReadFileNoLink, OpenNoLink), and a project's files are opened
//     through an os.Root (ReadInRoot), so links are followed only while
//     they stay inside the project.
//
// It does not decide what a caller does with a refused file: the runner
// answers a plugin with an empty value, install fails with a typed error.
package bounded
