package provenance

import (
	"strings"
	"testing"
)

// Real allowed-signers lines: ssh-keygen(1)'s examples and git's, with the
// options fledge reads and the ones it refuses.
var allowedSignersSeeds = []string{
	"user1@example.com,user2@example.com ssh-rsa AAAAX1...\n",
	"ann@example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ann\n",
	`"ann@example.com,*@corp.example" namespaces="git,file",valid-after="20200101",valid-before="20300101Z" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl` + "\n",
	"# comment\n\n*@example.com cert-authority ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n",
	"ann\tnamespaces=\"git\" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n",
	"\"unterminated ssh-ed25519 AAAA\n",
}

// ParseAllowedSigners never panics, and every line it accepts has a key,
// principals, and options that say what they say.
func FuzzParseAllowedSigners(f *testing.F) {
	for _, s := range allowedSignersSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		lines, err := ParseAllowedSigners("allowed", []byte(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "allowed signers allowed, line ") {
				t.Fatalf("an error that names no line: %v", err)
			}
			return
		}
		for _, l := range lines {
			if l.key == nil || l.line < 1 || strings.TrimSpace(l.principals) == "" {
				t.Fatalf("accepted a line without a key, principals or a number: %+v", l)
			}
		}
	})
}
