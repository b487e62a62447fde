package confine

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"slices"
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
		{"token or key format", func(v, _ string, _ int) bool { return matchesTokenFormat(v) }},
		{"URL with credentials", func(v, _ string, _ int) bool { return mayCredentialURL(v) && credentialURLs().MatchString(v) }},
		{"HTTP authorization", func(v, _ string, _ int) bool { return mayHTTPAuthorization(v) && httpAuthorization().MatchString(v) }},
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
// Each format is written as the literal every token of it holds (one of
// Lits), what may stand before it and what follows; the expression of a
// format is compiled only for a value holding one of its literals
// (matchesTokenFormat). Compiled as one expression they cost a run that
// checks any value 0.25 to 0.4 ms, the largest part of drawing a confined
// plugin's environment; a run's values rarely hold any literal.
var tokenFormats = []tokenFormat{
	{Lits: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, After: `[A-Za-z0-9]{10,}`}, // GitHub
	{Lits: []string{"github_pat_"}, After: `[A-Za-z0-9_]{10,}`},
	{Lits: []string{"glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "glimt-", "gloas-", "glft-", "glsoat-", "GR1348941"}, After: `[A-Za-z0-9_-]{20,}`}, // GitLab
	{Lits: []string{"xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-"}, After: `[A-Za-z0-9-]{10,}`},                                        // Slack
	{Lits: []string{"xapp-"}, After: `[0-9]-[A-Za-z0-9-]{10,}`},
	{Lits: []string{"sk-"}, After: `[A-Za-z0-9_-]{20,}`},                                        // OpenAI, Anthropic
	{Lits: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"}, After: `[A-Za-z0-9]{16,}`}, // Stripe
	{Lits: []string{"npm_"}, After: `[A-Za-z0-9]{30,}`},                                         // package registries
	{Lits: []string{"pypi-"}, After: `[A-Za-z0-9_-]{40,}`},
	{Lits: []string{"rubygems_"}, After: `[a-f0-9]{48}`},
	{Lits: []string{"hf_"}, After: `[A-Za-z0-9]{30,}`},   // Hugging Face
	{Lits: []string{"AIza"}, After: `[0-9A-Za-z_-]{35}`}, // Google
	{Lits: []string{"ya29.", "GOCSPX-"}, After: `[0-9A-Za-z_-]{20,}`},
	{Lits: []string{"AKIA", "ASIA", "ABIA", "ACCA"}, After: `[0-9A-Z]{16}`},  // AWS access key ids
	{Lits: []string{"AGE-SECRET-KEY-1"}, After: `[0-9A-Z]{50,}`},             // age
	{Lits: []string{"SG."}, After: `[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`}, // SendGrid
	{Lits: []string{"doo_v1_", "dop_v1_", "dor_v1_"}, After: `[a-f0-9]{64}`},
	{Lits: []string{"dckr_pat_"}, After: `[A-Za-z0-9_-]{20,}`},
	{Lits: []string{"shpat_", "shpss_", "shpca_", "shppa_"}, After: `[a-fA-F0-9]{32}`},
	{Lits: []string{"hvs.", "hvb.", "hvr."}, After: `[A-Za-z0-9_-]{20,}`},
	{Lits: []string{"ATATT3"}, After: `[A-Za-z0-9_=-]{20,}`},
	{Lits: []string{"lin_api_"}, After: `[A-Za-z0-9]{32,}`},
	{Lits: []string{"sntrys_", "sntrus_"}, After: `[A-Za-z0-9_=+/-]{20,}`},
	{Lits: []string{"pul-"}, After: `[a-f0-9]{40}`},
	{Lits: []string{"glsa_"}, After: `[A-Za-z0-9_]{32,}`},
	{Lits: []string{"dp.pt.", "dp.st.", "dp.sa.", "dp.ct."}, After: `[A-Za-z0-9]{20,}`}, // Doppler
	{Before: `[0-9]{8,10}`, Lits: []string{":AA"}, After: `[A-Za-z0-9_-]{33}`},          // Telegram bot tokens
	{Lits: []string{"eyJ"}, After: `[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.`},            // JWT
	{Lits: []string{"-----BEGIN", "LS0tLS1CRUdJTi", "PuTTY-User-Key-File-"}},            // PEM (also base64), PuTTY keys
}

// tokenFormat is one entry of tokenFormats: a match is Before, one of
// Lits, then After (expressions), not preceded by a letter or digit.
type tokenFormat struct {
	Before string
	Lits   []string
	After  string
}

// expr is the format's expression.
func (f tokenFormat) expr() string {
	lits := make([]string, len(f.Lits))
	for i, l := range f.Lits {
		lits[i] = regexp.QuoteMeta(l)
	}
	return `(?:^|[^A-Za-z0-9])` + f.Before + `(?:` + strings.Join(lits, "|") + `)` + f.After
}

// tokenFormatExprs are tokenFormats' expressions, each compiled the first
// time a value holds one of its literals.
var tokenFormatExprs = sync.OnceValue(func() []func() *regexp.Regexp {
	out := make([]func() *regexp.Regexp, len(tokenFormats))
	for i, f := range tokenFormats {
		out[i] = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(f.expr()) })
	}
	return out
})

// matchesTokenFormat reports whether v holds a token of one of
// tokenFormats. A match holds its format's literal, so a format none of
// whose literals v holds cannot match and is not compiled.
func matchesTokenFormat(v string) bool {
	for i, f := range tokenFormats {
		if slices.ContainsFunc(f.Lits, func(l string) bool { return strings.Contains(v, l) }) && tokenFormatExprs()[i]().MatchString(v) {
			return true
		}
	}
	return false
}

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

// mayCredentialURL and mayHTTPAuthorization hold for every value their
// expression matches, and are cheap: each expression is compiled only
// for a value that may match (most values hold no "://" and no space).
// A credential URL holds "://" or, in any case, ".com/" or ".org/" (each
// webhook host); an authorization header holds "authorization" in any
// case, and a scheme's credential follows a space. Lower-casing finds
// every case-insensitive match of those words: no letter in them has a
// case-fold outside ASCII, as a test checks ('k' and 's' have one).
func mayCredentialURL(v string) bool {
	if strings.Contains(v, "://") {
		return true
	}
	l := strings.ToLower(v)
	return strings.Contains(l, ".com/") || strings.Contains(l, ".org/")
}

func mayHTTPAuthorization(v string) bool {
	return strings.ContainsAny(v, " \t\n\f\r") || strings.Contains(strings.ToLower(v), "authorization")
}

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

// base64Shaped reports what ^[A-Za-z0-9+/_-]{16,}={0,2}$ matches: 16
// or more characters of the standard and URL alphabets, then up to two
// '='. A loop, not that expression: compiling it cost a run 13 to 40 µs.
func base64Shaped(v string) bool {
	body := strings.TrimRight(v, "=")
	if len(v)-len(body) > 2 || len(body) < 16 {
		return false
	}
	for i := range len(body) {
		switch c := body[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '+', c == '/', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// secretBase64 reports a value that is base64 (standard or URL alphabet,
// padded or not) of text that is itself secret by the value rules: a
// base64 service-account JSON, a PEM key, user:password.
func secretBase64(v, _ string, level int) bool {
	if !base64Shaped(v) {
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
