package runner

import (
	"regexp"
	"sort"
	"strings"
	"sync"
)

// The environment a plugin sees through the protocol (metadata "env" and
// the environment of exec commands) is filtered so that what passes through
// fledge never carries secrets. The filter is stricter than the Rust
// fledge's:
//
//   - fledge's own state (every FLEDGE_* variable) is removed;
//   - a name is dropped when it contains, in any case, secret, token,
//     passw, passphrase, credential, private, cookie, apikey, api_key,
//     accesskey, access_key, signature or session, or when one of its
//     "_"-separated words is key, pass, pwd, pat, auth, oauth, jwt, dsn,
//     or salt (so KEYBOARD and AUTHOR pass but GPG_KEY and BASIC_AUTH
//     do not; PWD and OLDPWD, the working directories, pass);
//   - loader and credential-location variables are dropped: LD_*, DYLD_*,
//     SSH_AUTH_SOCK, GPG_AGENT_INFO, KUBECONFIG, NETRC, DOCKER_CONFIG,
//     *_URL, *_URI and *_DSN (URLs routinely embed passwords);
//   - a value is dropped when it looks like a credential whatever its name:
//     a URL with a password (or any user info for http), user:secret@host, a JWT, a PEM block, or a
//     well-known token prefix (ghp_, github_pat_, glpat-, xox?-, sk-,
//     AKIA..., AIza..., npm_, pypi-, ...).
//
// The plugin process itself inherits the user's full environment: a native
// binary can read it directly, and plugins such as GitHub clients need
// their tokens. The filter keeps secrets out of what fledge hands over on
// the wire and out of commands run on a plugin's behalf.

var secretSubstrings = []string{
	"secret", "token", "passw", "passphrase", "credential", "private", "cookie",
	"apikey", "api_key", "accesskey", "access_key", "signature", "session",
}

var secretWords = map[string]bool{
	"key": true, "pass": true, "pwd": true, "pat": true, "auth": true, "oauth": true,
	"jwt": true, "dsn": true, "salt": true, "keys": true,
}

var droppedNames = map[string]bool{
	"SSH_AUTH_SOCK": true, "GPG_AGENT_INFO": true, "KUBECONFIG": true, "NETRC": true,
	"DOCKER_CONFIG": true, "PGPASSFILE": true, "AWS_SHARED_CREDENTIALS_FILE": true,
	"GOOGLE_APPLICATION_CREDENTIALS": true,
}

var secretValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|[^a-z0-9])(ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|xox[abposr]-|xapp-|sk-|sk_live_|rk_live_|npm_|pypi-|hf_|ya29\.|AKIA[0-9A-Z]{12}|ASIA[0-9A-Z]{12}|AIza[0-9A-Za-z_\-]{20})|-----BEGIN|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.|[a-z][a-z0-9+.-]*://[^/\s@]*:[^/\s@]*@|https?://[^/\s@]+@`)
})

// SecretName reports whether an environment variable's name marks it as a
// secret (or as fledge's own state) under the filter described above.
func SecretName(name string) bool {
	upper := strings.ToUpper(name)
	if strings.HasPrefix(upper, "FLEDGE_") || droppedNames[upper] {
		return true
	}
	if upper == "PWD" || upper == "OLDPWD" {
		return false
	}
	if strings.HasPrefix(upper, "LD_") || strings.HasPrefix(upper, "DYLD_") {
		return true
	}
	for _, suf := range []string{"_URL", "_URI", "_DSN"} {
		if strings.HasSuffix(upper, suf) {
			return true
		}
	}
	lower := strings.ToLower(name)
	for _, s := range secretSubstrings {
		if strings.Contains(lower, s) {
			return true
		}
	}
	for _, w := range strings.FieldsFunc(lower, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if secretWords[w] {
			return true
		}
	}
	return false
}

// SecretValue reports whether a value looks like a credential.
func SecretValue(v string) bool {
	if secretValue().MatchString(v) {
		return true
	}
	// user:password@host without a scheme.
	if at := strings.IndexByte(v, '@'); at > 0 {
		if c := strings.IndexByte(v[:at], ':'); c > 0 && !strings.ContainsAny(v[:at], " /") {
			return true
		}
	}
	return false
}

// FilterEnv returns environ ("NAME=value" entries) without the entries the
// filter drops, in the same order.
func FilterEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" || SecretName(name) || SecretValue(value) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// envMap is FilterEnv as a map (later entries win, as in a process env).
func envMap(environ []string) map[string]string {
	m := map[string]string{}
	for _, kv := range FilterEnv(environ) {
		name, value, _ := strings.Cut(kv, "=")
		m[name] = value
	}
	return m
}

// setEnv returns environ with name set to value, replacing any entry.
func setEnv(environ []string, name, value string) []string {
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if n, _, _ := strings.Cut(kv, "="); n == name {
			continue
		}
		out = append(out, kv)
	}
	return append(out, name+"="+value)
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
