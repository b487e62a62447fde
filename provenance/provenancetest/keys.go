// Package provenancetest makes real signing keys and signed git
// repositories for tests: SSH keys with ssh-keygen, OpenPGP keys with gpg
// in a GNUPGHOME of the test's own, and tags and commits signed by the git
// binary with either. Nothing touches the network or the user's keys.
package provenancetest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// SSHKey is an ed25519 key made by ssh-keygen.
type SSHKey struct {
	// Path is the private key's file (Path+".pub" the public key's).
	Path string
	// Public is the public key line ("ssh-ed25519 AAAA… comment").
	Public string
	// Fingerprint is OpenSSH's SHA256:… fingerprint.
	Fingerprint string
}

// NewSSHKey makes an ed25519 key without a passphrase in dir.
func NewSSHKey(tb testing.TB, dir, name string) SSHKey {
	tb.Helper()
	p := filepath.Join(dir, name)
	run(tb, nil, "", "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", p)
	pub, err := os.ReadFile(p + ".pub")
	if err != nil {
		tb.Fatal(err)
	}
	fp := strings.Fields(run(tb, nil, "", "ssh-keygen", "-l", "-E", "sha256", "-f", p+".pub"))[1]
	return SSHKey{Path: p, Public: strings.TrimSpace(string(pub)), Fingerprint: fp}
}

// AllowedSigners writes an allowed-signers file of lines (principals
// [options] key) and returns its path.
func AllowedSigners(tb testing.TB, path string, lines ...string) string {
	tb.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// GPG is a GNUPGHOME of a test's own.
type GPG struct {
	Home string
	tb   testing.TB
}

// NewGPG makes an empty GNUPGHOME in a directory of the test's own (short:
// gpg-agent's socket path is bounded).
func NewGPG(tb testing.TB) *GPG {
	tb.Helper()
	home, err := os.MkdirTemp("", "gpg")
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.Chmod(home, 0o700); err != nil {
		tb.Fatal(err)
	}
	g := &GPG{Home: home, tb: tb}
	tb.Cleanup(func() {
		// The agent started for this home ends with it.
		_ = exec.Command("gpgconf", "--homedir", home, "--kill", "all").Run()
		os.RemoveAll(home)
	})
	return g
}

// Env is the environment gpg (and git signing with it) runs with.
func (g *GPG) Env() []string { return []string{"GNUPGHOME=" + g.Home} }

// Run runs gpg in batch mode and returns its output.
func (g *GPG) Run(args ...string) string {
	g.tb.Helper()
	return run(g.tb, g.Env(), "", "gpg", append([]string{"--batch", "--yes", "--pinentry-mode", "loopback", "--passphrase", ""}, args...)...)
}

// NewKey makes an ed25519 signing key for uid ("Name <email>") that
// expires after expire ("1y", "never"), with gpg's clock at faked
// (YYYYMMDDTHHMMSS; "" for now), and returns its fingerprint.
func (g *GPG) NewKey(uid, expire, faked string) string {
	g.tb.Helper()
	args := []string{"--quick-gen-key", uid, "ed25519", "sign", expire}
	if faked != "" {
		args = append([]string{"--faked-system-time", faked + "!"}, args...)
	}
	g.Run(args...)
	out := g.Run("--with-colons", "--list-keys", uid)
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Split(l, ":"); len(f) > 9 && f[0] == "fpr" {
			return f[9]
		}
	}
	g.tb.Fatalf("no fingerprint for %s in:\n%s", uid, out)
	return ""
}

// Export writes the armored public key fpr to path and returns path.
func (g *GPG) Export(fpr, path string) string {
	g.tb.Helper()
	if err := os.WriteFile(path, []byte(g.Run("--armor", "--export", fpr)), 0o644); err != nil {
		g.tb.Fatal(err)
	}
	return path
}

// Revoke imports the revocation certificate gpg made with fpr.
func (g *GPG) Revoke(fpr string) {
	g.tb.Helper()
	rev, err := os.ReadFile(filepath.Join(g.Home, "openpgp-revocs.d", fpr+".rev"))
	if err != nil {
		g.tb.Fatal(err)
	}
	// gpg prefixes the armour with ':' so it is not imported by accident.
	rev = bytes.Replace(rev, []byte(":-----BEGIN PGP PUBLIC KEY BLOCK-----"), []byte("-----BEGIN PGP PUBLIC KEY BLOCK-----"), 1)
	p := filepath.Join(g.Home, "revoke.asc")
	if err := os.WriteFile(p, rev, 0o600); err != nil {
		g.tb.Fatal(err)
	}
	g.Run("--import", p)
}

// Wrapper writes a gpg program for git's gpg.program that runs gpg with
// its clock at faked (to sign with a key that has since expired).
func (g *GPG) Wrapper(faked string) string {
	g.tb.Helper()
	p := filepath.Join(g.Home, "gpg-at-"+faked)
	script := "#!/bin/sh\nexec gpg --faked-system-time " + faked + "! \"$@\"\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		g.tb.Fatal(err)
	}
	return p
}

func run(tb testing.TB, env []string, dir, name string, args ...string) string {
	tb.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		tb.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}
