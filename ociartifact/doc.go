// Package ociartifact owns fledge's plugin artifact in OCI registries and
// OCI image layouts: its media types and annotations, what an OCI source
// string names (Ref), packing a plugin tree into one tar layer and
// unpacking it with every read bounded, and pushing and pulling through
// oras-go against a registry (remote) or a directory (layout).
//
// The artifact is plain OCI (an image manifest, version 1.1, with an
// artifactType, the empty config and one layer), so any OCI client can copy,
// mirror or inspect it; fledge reads only artifacts of its own type.
//
// It does not own what is done with a pulled tree (package install
// validates, approves, builds and records it), nor which sources map to
// which mirror (the settings and policy), nor words for the user beyond
// its errors.
//
// oras-go is used only when a function here is called: nothing is set up
// at package init. What its linked packages do at init every command pays:
// oras-go/v2/registry compiles its reference grammar (about 0.4 to 0.6 ms
// in GODEBUG=inittrace on a loaded 2-core machine) and go-digest registers
// its algorithms (0.1 ms); that cannot be deferred without changing
// oras-go. fledge does not link oras-go's root package, whose init compiles
// another expression (Target and Source stand for its interfaces; the deps
// test keeps it out). bench/oci.sh measures --version against main.
package ociartifact
