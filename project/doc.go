// Package project names a project's language from the files in its
// directory, with the Rust fledge's labels (src/run.rs, detect_project_type,
// v1.7.2): rust, node, go, python, ruby, java-gradle, java-maven, swift, or
// generic. Scripts and plugins compare these strings, so they are Rust's
// exactly.
//
// It looks at one directory and never walks up, reads a file's contents or
// follows the network. Finding the project root (and the language the
// runner sends plugins in init.project) is the runner's business.
package project
