// Package project describes the directory fledge runs in, as the Rust
// fledge does (src/protocol/detect.rs and src/run.rs, detect_project_type,
// v1.7.2): its name is the directory's base name, its root is the directory
// itself, and its language is named from the files in it with Rust's
// labels: rust, node, go, python, ruby, java-gradle, java-maven, swift, or
// generic. Scripts and plugins compare these strings, so they are Rust's
// exactly.
//
// A project is where the user stands, never a directory found by walking
// up: run from a monorepo's svc/ directory, the project is svc/, as it was
// under the Rust fledge. Detection looks at that one directory only; it
// never reads a file's contents or touches the network.
//
// It does not own the project's git state (package project/gitstate) nor
// what a plugin may touch (the runner's confinement).
package project
