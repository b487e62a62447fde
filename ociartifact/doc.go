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
// at package init, so commands that never touch a registry do not pay for
// it beyond the linked packages' own init (measured in bench/oci).
package ociartifact
