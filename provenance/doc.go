// Package provenance verifies what git signs — annotated tags and commits,
// with SSH signatures (gpg.format = ssh) or OpenPGP — against the signers
// a user and an administrator trust, and says who signed a fetched
// revision as a lockfile.Provenance: its level (signed-tag, signed-commit,
// unsigned), the signer's key fingerprint, the principal vouched for it
// and which trusted file vouched.
//
// Trusted signers are files (Load): git's allowed-signers format
// (gpg.ssh.allowedSignersFile, ssh-keygen(1) ALLOWED SIGNERS: principals,
// namespaces="git", valid-after and valid-before; cert-authority lines
// are refused, naming the line), or an armored OpenPGP public key block
// (gpg --export --armor), which git's format cannot hold.
//
// SSH signatures (SSHSIG) are checked with github.com/hiddeco/sshsig over
// golang.org/x/crypto/ssh, in git's "git" namespace; OpenPGP signatures
// with go-git's object Verify (ProtonMail/go-crypto), which refuses
// expired and revoked keys. An SSH signature whose key no file lists is
// still checked against the key it carries: it is signed, by an unknown
// key, which the first install pins (lockfile.VouchedFirstUse). An
// OpenPGP signature by a key no file holds cannot be checked at all and
// counts as unsigned, with a note saying which key to add. A signature
// that does not match what it signs is an error (*BadSignatureError):
// evidence of tampering, never a lower level.
//
// Away from a repository (an OCI mirror or bundle), the signed objects
// travel as evidence (EncodeEvidence: git's own object encoding, byte for
// byte); DecodeEvidence reads it back and Covers checks it vouches for a
// given commit and tree, recomputing the tree's git hash (GitTree) from
// the files, before Verify says who signed.
//
// It verifies the objects of a fetch (install, update, sync) and is never
// on the path that runs a plugin. It does not decide what a level must be
// (package policy's [provenance] require, applied by install) or whether
// a change of signer is accepted (install).
package provenance
