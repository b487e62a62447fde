package confine

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// The environment a plugin sees through the protocol (metadata "env" and
// the environment of exec commands) is filtered so that what passes through
// fledge never carries secrets (FilterEnv). The plugin process itself gets
// the base environment (Environment, env.go), whose entries pass the same
// name and value rules (Secret), plus what it was granted by name.
//
// The filter fails closed: an entry is dropped when its name or its value
// looks like a credential by any rule below, and a harmless variable that
// trips a rule is dropped too (every *_URL, for instance). The tables are
// tested against a corpus of real variable names with realistic values
// (testdata/envfilter_corpus.txt: CI systems, clouds, package registries,
// container tools, desktops) that must be dropped or kept.
//
// Why not a secret-scanning library: gitleaks (v8.30) is the well-kept one
// with a rule set, but it brings about 200 modules (viper, zerolog, a wasm
// RE2), 12 MB of binary and 70 ms of start-up, and it scans text for
// high-entropy values: run over "NAME=value" lines it missed SSHPASS, *_PW,
// user:pass values, Discord webhooks and base64 JSON credentials, which a
// name and value filter must catch.

// Name rules. Names are compared in upper case (Windows names ignore case)
// and split into words at '_', '-' and '.'.
var (
	// keptNames match a rule below but are known not to hold secrets.
	keptNames = setOf(
		"PWD", "OLDPWD", // working directories
		"GOPRIVATE", "GONOPROXY", "GONOSUMDB", // module path patterns Go builds need
		"XDG_SESSION_TYPE", "XDG_SESSION_CLASS", "XDG_SESSION_DESKTOP", "XDG_SESSION_ID", "DBUS_SESSION_BUS_ADDRESS",
		"DESKTOP_SESSION", "GDMSESSION", // the desktop's session type
		"GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", // paths of prompt programs
		"TOKENIZERS_PARALLELISM", // Hugging Face tokenizers' thread switch
	)
	// droppedNames are secrets, or say where secrets are.
	droppedNames = setOf(
		"SSHPASS", "PASSCODE", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "KUBECONFIG", "NETRC", "DOCKER_CONFIG",
		"PGPASSFILE", "AWS_SHARED_CREDENTIALS_FILE", "GOOGLE_APPLICATION_CREDENTIALS", "NPM_CONFIG_USERCONFIG",
	)
	// droppedPrefixes: fledge's own state, and dynamic-loader variables that
	// would inject code into every command run.
	droppedPrefixes = []string{"FLEDGE_", "LD_", "DYLD_"}
	// droppedSuffixes: URLs and DSNs routinely embed passwords.
	droppedSuffixes = []string{"_URL", "_URI", "_DSN"}
	// droppedSubstrings anywhere in the name.
	droppedSubstrings = []string{
		"SECRET", "TOKEN", "PASSW", "PASSPHRASE", "PASSCODE", "CREDENTIAL", "PRIVATE", "PRIVKEY", "COOKIE",
		"APIKEY", "API_KEY", "ACCESSKEY", "ACCESS_KEY", "SIGNATURE", "SESSION", "WEBHOOK", "SSHPASS",
	}
	// droppedWords: a whole word of the name (GPG_KEY, DB_PW, SIM_PIN, but
	// not KEYBOARD or AUTHOR).
	droppedWords = setOf(
		"KEY", "KEYS", "PASS", "PWD", "PW", "PIN", "PAT", "AUTH", "OAUTH", "BEARER", "JWT", "DSN", "SALT",
		"OTP", "TOTP", "CRED", "CREDS", "SIG",
		// HTTP headers (PROXY_AUTHORIZATION, HTTP_HEADERS, GIT_HTTP_EXTRAHEADER)
		// and logins (LOGIN=admin/hunter2) carry credentials in other forms.
		"AUTHORIZATION", "HEADER", "HEADERS", "EXTRAHEADER", "EXTRAHEADERS", "LOGIN", "LOGINS",
	)
	// droppedWordEnds: a word ending so (DBPASS, ROOTPW, ADMINPWD), except
	// droppedWordEndsKept.
	droppedWordEnds     = []string{"PASS", "PWD", "PW"}
	droppedWordEndsKept = setOf("ASKPASS", "BYPASS", "COMPASS", "OVERPASS", "SURPASS")
)

// SecretName reports whether an environment variable's name marks it as a
// secret (or as fledge's own state, or a loader hook) under the rules above.
func SecretName(name string) bool {
	return hasAnyPrefix(strings.ToUpper(name), droppedPrefixes) || secretName(name)
}

// Secret reports whether an environment entry holds a secret by the name
// and value rules above (fledge's own FLEDGE_ names and the loader's are
// not secrets: SecretName drops them from the wire for other reasons).
// The base environment of a confined plugin keeps only entries that are
// not (see Environment).
func Secret(name, value string) bool {
	return secretName(name) || secretValue(value, name, 0)
}

func secretName(name string) bool {
	upper := strings.ToUpper(name)
	switch {
	case keptNames[upper]:
		return false
	case droppedNames[upper], hasAnySuffix(upper, droppedSuffixes), bundlerCredential(upper):
		return true
	}
	for _, s := range droppedSubstrings {
		if strings.Contains(upper, s) {
			return true
		}
	}
	for _, w := range nameWords(upper) {
		if droppedWords[w] {
			return true
		}
		if !droppedWordEndsKept[w] && hasAnySuffix(w, droppedWordEnds) {
			return true
		}
	}
	return false
}

// bundlerCredential reports Bundler's per-host credentials,
// BUNDLE_<HOST> with dots written as "__" (BUNDLE_GEMS__EXAMPLE__COM),
// whose value is user:password.
func bundlerCredential(upper string) bool {
	return strings.HasPrefix(upper, "BUNDLE_") && strings.Contains(upper[len("BUNDLE_"):], "__")
}

func nameWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
}

// Value rules: a value is dropped, whatever its name, when it holds a
// known token or key format, a URL carrying credentials, an HTTP
// Authorization header or scheme, command-line credentials (curl's
// -u user:pass, mysql's -uroot -psecret), a key=value pair or a JSON
// document (plain or base64) with a secret-named key, or is shaped like
// user:password.
type valueRule struct {
	name string
	// match reports v secret. name is the variable's (empty inside JSON
	// or base64); level counts the decodings that led to v.
	match func(v, name string, level int) bool
}

// valueRules is a function, not a variable, because two rules recurse
// into secretValue, which reads the table.
func valueRules() [9]valueRule {
	return [...]valueRule{
		{"token or key format", func(v, _ string, _ int) bool { return tokenFormats().MatchString(v) }},
		{"URL with credentials", func(v, _ string, _ int) bool { return credentialURLs().MatchString(v) }},
		{"HTTP authorization", func(v, _ string, _ int) bool { return httpAuthorization().MatchString(v) }},
		{"command-line credentials", func(v, _ string, _ int) bool { return commandLineCredentials(v) }},
		{"secret-named parameter", func(v, _ string, _ int) bool { return secretParam(v) }},
		{"JSON with a secret-named key", secretJSON},
		{"base64 of a secret", secretBase64},
		{"user:password@host", func(v, _ string, _ int) bool { return userPasswordAtHost(v) }},
		{"user:password", func(v, name string, _ int) bool { return !colonListName(name) && userPassword(v) }},
	}
}

// maxLevel bounds the decodings (base64, JSON strings) followed into a
// value; what lies deeper is taken as secret.
const maxLevel = 3

// tokenFormats are distinctive prefixes of provider tokens and keys, each
// followed by enough token characters that ordinary words do not match.
var tokenFormats = sync.OnceValue(func() *regexp.Regexp {
	formats := []string{
		`(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{10,}`, `github_pat_[A-Za-z0-9_]{10,}`, // GitHub
		`glpat-[A-Za-z0-9_-]{20,}`, `gl(?:dt|ptt|rt|cbt|imt|oas|ft|soat)-[A-Za-z0-9_-]{20,}`, `GR1348941[A-Za-z0-9_-]{20,}`, // GitLab
		`xox[abposre]-[A-Za-z0-9-]{10,}`, `xapp-[0-9]-[A-Za-z0-9-]{10,}`, // Slack
		`sk-[A-Za-z0-9_-]{20,}`, `(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`, // OpenAI, Anthropic, Stripe
		`npm_[A-Za-z0-9]{30,}`, `pypi-[A-Za-z0-9_-]{40,}`, `rubygems_[a-f0-9]{48}`, // package registries
		`hf_[A-Za-z0-9]{30,}`,                                                            // Hugging Face
		`AIza[0-9A-Za-z_-]{35}`, `ya29\.[0-9A-Za-z_-]{20,}`, `GOCSPX-[0-9A-Za-z_-]{20,}`, // Google
		`(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}`,        // AWS access key ids
		`AGE-SECRET-KEY-1[0-9A-Z]{50,}`,              // age
		`SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`, // SendGrid
		`do[opr]_v1_[a-f0-9]{64}`, `dckr_pat_[A-Za-z0-9_-]{20,}`, `shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}`,
		`hv[sbr]\.[A-Za-z0-9_-]{20,}`, `ATATT3[A-Za-z0-9_=-]{20,}`, `lin_api_[A-Za-z0-9]{32,}`,
		`sntr[yu]s_[A-Za-z0-9_=+/-]{20,}`, `pul-[a-f0-9]{40}`, `glsa_[A-Za-z0-9_]{32,}`,
		`dp\.(?:pt|st|sa|ct)\.[A-Za-z0-9]{20,}`,     // Doppler
		`[0-9]{8,10}:AA[A-Za-z0-9_-]{33}`,           // Telegram bot tokens
		`eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.`, // JWT
		`-----BEGIN`, `LS0tLS1CRUdJTi`, `PuTTY-User-Key-File-`, // PEM (also base64), PuTTY keys
	}
	return regexp.MustCompile(`(?:^|[^A-Za-z0-9])(?:` + strings.Join(formats, "|") + `)`)
})

// credentialURLs match a URL with a password (any scheme), any user info
// (http), or the host and path of a webhook whose URL is its credential.
var credentialURLs = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)[a-z][a-z0-9+.-]*://[^/\s@]*:[^/\s@]*@|https?://[^/\s@]+@|` +
		`hooks\.slack\.com/(?:services|workflows|triggers)/|discord(?:app)?\.com/api/webhooks/|` +
		`\.webhook\.office\.com/|outlook\.office(?:365)?\.com/webhook/|hooks\.zapier\.com/hooks/|` +
		`api\.telegram\.org/bot[0-9]+:|maker\.ifttt\.com/trigger/`)
})

// httpAuthorization matches an Authorization or Proxy-Authorization header
// and the credential of an HTTP authentication scheme ("Basic dXNl…",
// "Bearer eyJ…").
var httpAuthorization = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|[^a-z0-9-])(?:proxy-)?authorization\s*:|` +
		`(?:^|[\s"':=])(?:basic|bearer|digest|negotiate|ntlm)\s+[a-z0-9._~+/-]{6,}`)
})

// commandLineCredentials reports command-line options that carry a
// password: a user option with user:password (curl -u admin:hunter2,
// --user=admin:hunter2), --password VALUE, or a user option beside mysql's
// -pPASSWORD (alone, -p… is a compiler flag: -pthread, -pipe).
func commandLineCredentials(v string) bool {
	fields := strings.Fields(v)
	user, pass := false, false
	for i, f := range fields {
		next := ""
		if i+1 < len(fields) {
			next = fields[i+1]
		}
		var arg string
		switch {
		case f == "-u" || f == "--user":
			arg, user = next, true
		case strings.HasPrefix(f, "--user="):
			arg, user = f[len("--user="):], true
		case strings.HasPrefix(f, "-u"):
			arg, user = f[2:], true
		case (f == "--password" || f == "--pass") && next != "" && !strings.HasPrefix(next, "-"):
			return true
		case strings.HasPrefix(f, "-p") && len(f) > 2:
			pass = true
		}
		if u, p, ok := strings.Cut(arg, ":"); ok && u != "" && p != "" {
			return true
		}
	}
	return user && pass
}

// secretParam reports a key=value pair with a secret-named key anywhere in
// the value: URL queries (?access_token=, &sig=), connection strings
// (Password=…;), JVM options (-Dx.trustStorePassword=…).
func secretParam(v string) bool {
	if !strings.Contains(v, "=") {
		return false
	}
	for _, field := range strings.FieldsFunc(v, func(r rune) bool {
		return r == '?' || r == '&' || r == ';' || r == ',' || r == ' ' || r == '\t' || r == '\n'
	}) {
		if k, _, ok := strings.Cut(field, "="); ok && secretKey(k) {
			return true
		}
	}
	return false
}

// secretKey reports a parameter or JSON key that names a secret. Only the
// last dotted part counts ("javax.net.ssl.trustStorePassword"), in lower
// case.
func secretKey(k string) bool {
	k = strings.ToLower(strings.TrimLeft(k, "-"))
	if i := strings.LastIndexByte(k, '.'); i >= 0 {
		k = k[i+1:]
	}
	switch k {
	case "pass", "pwd", "sig", "auth", "auths", "credentials":
		return true
	}
	if strings.HasSuffix(k, "key") { // key, apiKey, accountKey, signingKey
		return true
	}
	for _, s := range []string{"passw", "passphrase", "secret", "token", "apikey", "api_key", "signature", "private_key"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// secretJSON reports a JSON object or array with a secret-named key at any
// depth (a service-account file, a docker config.json), or a string in it
// that is secret by the value rules.
func secretJSON(v, _ string, level int) bool {
	t := strings.TrimSpace(v)
	if t == "" || (t[0] != '{' && t[0] != '[') || !json.Valid([]byte(t)) {
		return false
	}
	var doc any
	if json.Unmarshal([]byte(t), &doc) != nil {
		return true // valid, yet not decodable: fail closed
	}
	return jsonSecret(doc, level, 0)
}

func jsonSecret(v any, level, depth int) bool {
	if depth > 32 {
		return true
	}
	switch v := v.(type) {
	case map[string]any:
		for k, c := range v {
			if secretKey(k) || jsonSecret(c, level, depth+1) {
				return true
			}
		}
	case []any:
		for _, c := range v {
			if jsonSecret(c, level, depth+1) {
				return true
			}
		}
	case string:
		return secretValue(v, "", level+1)
	}
	return false
}

var base64Value = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9+/_-]{16,}={0,2}$`)
})

// secretBase64 reports a value that is base64 (standard or URL alphabet,
// padded or not) of text that is itself secret by the value rules: a
// base64 service-account JSON, a PEM key, user:password.
func secretBase64(v, _ string, level int) bool {
	if !base64Value().MatchString(v) {
		return false
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		dec, err := enc.DecodeString(v)
		if err != nil || !utf8.Valid(dec) || !printable(string(dec)) {
			continue
		}
		return secretValue(string(dec), "", level+1)
	}
	return false
}

func printable(s string) bool {
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' || r == 0x7f || r == utf8.RuneError {
			return false
		}
	}
	return true
}

// userPasswordAtHost reports user:password@host without a scheme (the
// first '@' preceded by a colon, with no space or slash before it).
func userPasswordAtHost(v string) bool {
	at := strings.IndexByte(v, '@')
	return at > 0 && strings.IndexByte(v[:at], ':') > 0 && !strings.ContainsAny(v[:at], " \t/")
}

// userPassword reports a value shaped like user:password: one colon, no
// spaces, slashes, '@', '=', ';' or ',', both sides non-empty, the right
// side not starting with a digit (a port, 127.0.0.1:8080, or an image tag,
// ruby:3.2). Variables that hold colon-separated lists are exempt (see
// colonListName), not the values' other rules.
func userPassword(v string) bool {
	user, pass, ok := strings.Cut(v, ":")
	return ok && user != "" && pass != "" && !strings.ContainsAny(v, " \t\n/@=;,") &&
		!strings.Contains(pass, ":") && (pass[0] < '0' || pass[0] > '9')
}

// colonListName reports variables whose values are colon-separated lists
// (LANGUAGE=en_US:en, XDG_CURRENT_DESKTOP=ubuntu:GNOME, PYTHONPATH=src:lib,
// COMPOSE_FILE=a.yml:b.yml), which the user:password shape must not drop.
func colonListName(name string) bool {
	upper := strings.ToUpper(name)
	return colonLists[upper] || hasAnySuffix(upper, []string{"PATH", "DIRS", "_FILE", "_FILES"})
}

var colonLists = setOf("LANGUAGE", "XDG_CURRENT_DESKTOP", "XDG_SESSION_DESKTOP", "HISTCONTROL", "HISTIGNORE", "GTK_MODULES",
	"BUNDLE_WITH", "BUNDLE_WITHOUT")

// secretValue applies the value rules to the value of variable name.
func secretValue(v, name string, level int) bool {
	if v == "" {
		return false
	}
	if level > maxLevel {
		return true
	}
	for _, r := range valueRules() {
		if r.match(v, name, level) {
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
		if !ok || name == "" || SecretName(name) || secretValue(value, name, 0) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func setOf(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func hasAnySuffix(s string, suffixes []string) bool {
	for _, p := range suffixes {
		if strings.HasSuffix(s, p) {
			return true
		}
	}
	return false
}
