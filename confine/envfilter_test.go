package confine

import (
	"bufio"
	"encoding/base64"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// envCorpusEntry is one line of testdata/envfilter_corpus.txt.
type envCorpusEntry struct {
	line int
	drop bool
	kv   string
}

var corpusTemplate = regexp.MustCompile(`\{\{(alnum|upper|hex|digits) ([0-9]+)\}\}|\{\{(b64|b64url) (.*?)\}\}(\}*)`)

// loadEnvCorpus reads the corpus, generating its token-shaped values.
func loadEnvCorpus(t *testing.T) []envCorpusEntry {
	t.Helper()
	f, err := os.Open("testdata/envfilter_corpus.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	alphabets := map[string]string{
		"alnum":  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
		"upper":  "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
		"hex":    "0123456789abcdef",
		"digits": "0123456789",
	}
	var out []envCorpusEntry
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, kv, ok := strings.Cut(line, " ")
		if !ok || (verb != "drop" && verb != "keep") || !strings.Contains(kv, "=") {
			t.Fatalf("corpus line %d: %q is not \"drop|keep NAME=value\"", n, line)
		}
		kv = corpusTemplate.ReplaceAllStringFunc(kv, func(m string) string {
			g := corpusTemplate.FindStringSubmatch(m)
			if g[1] != "" {
				size, _ := strconv.Atoi(g[2])
				b := make([]byte, size)
				for i := range b {
					b[i] = alphabets[g[1]][rng.IntN(len(alphabets[g[1]]))]
				}
				return string(b)
			}
			// A JSON text ends in "}", which the lazy match leaves in
			// the closing braces: give it back.
			text := g[4] + g[5]
			if g[3] == "b64url" {
				return base64.RawURLEncoding.EncodeToString([]byte(text))
			}
			return base64.StdEncoding.EncodeToString([]byte(text))
		})
		out = append(out, envCorpusEntry{line: n, drop: verb == "drop", kv: kv})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEnvFilterCorpus holds the filter to the corpus, entry by entry and
// all at once (kept entries in their order).
func TestEnvFilterCorpus(t *testing.T) {
	t.Parallel()
	entries := loadEnvCorpus(t)
	var drops, keeps int
	var all, kept []string
	for _, e := range entries {
		got := FilterEnv([]string{e.kv})
		if dropped := len(got) == 0; dropped != e.drop {
			verb := map[bool]string{true: "dropped", false: "kept"}
			t.Errorf("line %d: %.120s was %s, want %s", e.line, e.kv, verb[dropped], verb[e.drop])
		}
		if e.drop {
			drops++
		} else {
			keeps++
			kept = append(kept, e.kv)
		}
		all = append(all, e.kv)
	}
	if got := FilterEnv(all); strings.Join(got, "\n") != strings.Join(kept, "\n") {
		t.Errorf("FilterEnv over the whole corpus kept %d entries, want the %d kept ones in order", len(got), len(kept))
	}
	if drops < 150 || keeps < 150 {
		t.Errorf("corpus has %d drop and %d keep entries; it should keep growing, not shrink", drops, keeps)
	}
}

// The corpus's generated values look like what they stand for.
func TestEnvCorpusTemplates(t *testing.T) {
	t.Parallel()
	for _, e := range loadEnvCorpus(t) {
		if strings.Contains(e.kv, "{{") {
			t.Errorf("line %d: template left in %q", e.line, e.kv)
		}
	}
	for _, want := range []string{
		`GOOGLE_CREDENTIALS_B64=` + base64.StdEncoding.EncodeToString([]byte(`{"type":"service_account","project_id":"p","private_key_id":"0a1b","private_key":"-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n","client_email":"ci@p.iam.gserviceaccount.com"}`)),
		`LOGIN_B64=` + base64.StdEncoding.EncodeToString([]byte("alice:hunter2")),
	} {
		found := false
		for _, e := range loadEnvCorpus(t) {
			found = found || e.kv == want
		}
		if !found {
			t.Errorf("no corpus entry %q", want)
		}
	}
}

// Each name rule and each value rule holds on its own, with the name or
// value alone.
func TestSecretNameAndValue(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"SSHPASS", "sshpass", "DB_PW", "SIM_PIN", "PASSCODE", "SLACK_WEBHOOK", "DISCORD_WEBHOOK_URL", "BUNDLE_GITHUB__COM", "MYSQLPASS"} {
		if !SecretName(name) {
			t.Errorf("SecretName(%q) = false", name)
		}
	}
	for _, name := range []string{"PATH", "HOME", "LANG", "TERM", "PWD", "GIT_ASKPASS", "BYPASS_CACHE", "KEYBOARD", "PINENTRY", "SPIN"} {
		if SecretName(name) {
			t.Errorf("SecretName(%q) = true", name)
		}
	}
	for _, v := range []string{
		"AGE-SECRET-KEY-1" + strings.Repeat("Q", 58), "alice:hunter2", "user:pass",
		base64.StdEncoding.EncodeToString([]byte(`{"client_secret":"x"}`)),
		"https://hooks.slack.com/services/T0/B0/x", "https://discord.com/api/webhooks/1/x",
		base64.StdEncoding.EncodeToString([]byte(base64.StdEncoding.EncodeToString([]byte(`{"password":"p"}`)))),
	} {
		if !secretValue(v, "", 0) {
			t.Errorf("secretValue(%q) = false", v)
		}
	}
	for _, v := range []string{"", "/usr/bin:/bin", "localhost:8080", "ruby:3.2", "sk-SK", "true", "en_US.UTF-8"} {
		if secretValue(v, "", 0) {
			t.Errorf("secretValue(%q) = true", v)
		}
	}
	// A colon list is exempt from the user:password shape only.
	if got := FilterEnv([]string{"LANGUAGE=en_US:en", "LANGUAGE=ghp_" + strings.Repeat("a", 36), "OTHER=en_US:en"}); len(got) != 1 || got[0] != "LANGUAGE=en_US:en" {
		t.Errorf("colon lists: kept %q", got)
	}
}

// FuzzEnvFilter: the filter never panics, drops or keeps each entry on its
// own merits (filtering a list is filtering each entry), and a value that
// is secret stays secret under any name.
func FuzzEnvFilter(f *testing.F) {
	f.Add("SSHPASS", "x")
	f.Add("APP", `{"a":[{"b":"`+base64.StdEncoding.EncodeToString([]byte(`{"password":1}`))+`"}]}`)
	f.Add("LANGUAGE", "en_US:en")
	f.Add("X", "https://u:p@h/?token=1&sig=2")
	f.Add("Y", strings.Repeat("[", 40)+strings.Repeat("]", 40))
	f.Fuzz(func(t *testing.T, name, value string) {
		if strings.Contains(name, "=") {
			return
		}
		kv := name + "=" + value
		alone := len(FilterEnv([]string{kv})) == 1
		inList := len(FilterEnv([]string{"PATH=/bin", kv, "HOME=/h"})) == 3
		if alone != inList {
			t.Fatalf("%q kept alone %v, in a list %v", kv, alone, inList)
		}
		if secretValue(value, "", 0) && alone && !colonListName(name) {
			t.Fatalf("%q kept though its value is secret", kv)
		}
	})
}

// The value rules' expressions as they were written before they were split
// and gated (matchesTokenFormat, base64Shaped, mayCredentialURL,
// mayHTTPAuthorization): what replaced them must say the same of every
// value.
var (
	oneTokenExpr = regexp.MustCompile(`(?:^|[^A-Za-z0-9])(?:` + strings.Join([]string{
		`(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{10,}`, `github_pat_[A-Za-z0-9_]{10,}`,
		`glpat-[A-Za-z0-9_-]{20,}`, `gl(?:dt|ptt|rt|cbt|imt|oas|ft|soat)-[A-Za-z0-9_-]{20,}`, `GR1348941[A-Za-z0-9_-]{20,}`,
		`xox[abposre]-[A-Za-z0-9-]{10,}`, `xapp-[0-9]-[A-Za-z0-9-]{10,}`,
		`sk-[A-Za-z0-9_-]{20,}`, `(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`,
		`npm_[A-Za-z0-9]{30,}`, `pypi-[A-Za-z0-9_-]{40,}`, `rubygems_[a-f0-9]{48}`,
		`hf_[A-Za-z0-9]{30,}`,
		`AIza[0-9A-Za-z_-]{35}`, `ya29\.[0-9A-Za-z_-]{20,}`, `GOCSPX-[0-9A-Za-z_-]{20,}`,
		`(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}`,
		`AGE-SECRET-KEY-1[0-9A-Z]{50,}`,
		`SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`,
		`do[opr]_v1_[a-f0-9]{64}`, `dckr_pat_[A-Za-z0-9_-]{20,}`, `shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}`,
		`hv[sbr]\.[A-Za-z0-9_-]{20,}`, `ATATT3[A-Za-z0-9_=-]{20,}`, `lin_api_[A-Za-z0-9]{32,}`,
		`sntr[yu]s_[A-Za-z0-9_=+/-]{20,}`, `pul-[a-f0-9]{40}`, `glsa_[A-Za-z0-9_]{32,}`,
		`dp\.(?:pt|st|sa|ct)\.[A-Za-z0-9]{20,}`,
		`[0-9]{8,10}:AA[A-Za-z0-9_-]{33}`,
		`eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.`,
		`-----BEGIN`, `LS0tLS1CRUdJTi`, `PuTTY-User-Key-File-`,
	}, "|") + `)`)
	oneBase64Expr = regexp.MustCompile(`^[A-Za-z0-9+/_-]{16,}={0,2}$`)
)

// checkValueExpressions fails when a replacement says otherwise than the
// expression it replaced about v.
func checkValueExpressions(t *testing.T, v string) {
	t.Helper()
	if got, want := matchesTokenFormat(v), oneTokenExpr.MatchString(v); got != want {
		t.Errorf("matchesTokenFormat(%q) = %v, the one expression says %v", v, got, want)
	}
	if got, want := base64Shaped(v), oneBase64Expr.MatchString(v); got != want {
		t.Errorf("base64Shaped(%q) = %v, the expression says %v", v, got, want)
	}
	if credentialURLs().MatchString(v) && !mayCredentialURL(v) {
		t.Errorf("mayCredentialURL(%q) = false, yet the expression matches", v)
	}
	if httpAuthorization().MatchString(v) && !mayHTTPAuthorization(v) {
		t.Errorf("mayHTTPAuthorization(%q) = false, yet the expression matches", v)
	}
}

// Every corpus value, a token of every format (each literal, with enough
// characters after it, with and without what must come before it), and
// near misses read as the single expressions read them.
func TestValueExpressionsAsBefore(t *testing.T) {
	t.Parallel()
	for _, e := range loadEnvCorpus(t) {
		_, v, _ := strings.Cut(e.kv, "=")
		checkValueExpressions(t, v)
	}
	tokens := 0
	for _, f := range tokenFormats {
		for _, l := range f.Lits {
			for _, before := range []string{"", "12345678", "x", " ", "1234567890"} {
				for _, after := range []string{"", strings.Repeat("a", 70), strings.Repeat("A", 70), strings.Repeat("0", 70),
					"1-" + strings.Repeat("b", 12), strings.Repeat("c", 20) + "." + strings.Repeat("d", 20) + ".", strings.Repeat("7", 9)} {
					v := before + l + after
					checkValueExpressions(t, v)
					checkValueExpressions(t, "pre "+v+" post")
					if oneTokenExpr.MatchString(v) {
						tokens++
					}
				}
			}
		}
	}
	if tokens < 60 {
		t.Errorf("only %d generated values are tokens: the samples no longer reach the formats", tokens)
	}
	for _, v := range []string{
		"Authorization: Bearer abcdefgh", "PROXY-AUTHORIZATION :x", "basic\tdXNlcjpwYXNz", "https://HOOKS.SLACK.COM/services/x/",
		"api.telegram.org/bot123:x", "DISCORDAPP.COM/API/WEBHOOKS/", "Outlook.Office365.com/webhook/", "ftp://u:p@h",
		"QUJDREVGR0hJSktMTU5PUA==", "QUJDREVGR0hJSktMTU5PUA===", "QUJDREVGR0hJSktM", "QUJDREVGR0hJSktMTU5PUA=x", "QUJDREVG R0hJSktMTU5PUA",
	} {
		checkValueExpressions(t, v)
	}
}

// The gates lower-case a value to find a case-insensitive match of their
// words: no letter of those words may have a case-fold outside ASCII, as
// 'k' (U+212A, the Kelvin sign) and 's' (U+017F) do.
func TestGateWordsFoldInASCII(t *testing.T) {
	for _, word := range []string{".com/", ".org/", "authorization"} {
		for _, r := range word {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				if f > unicode.MaxASCII {
					t.Errorf("%q of the gate word %q folds to %U, which lower-casing does not find", r, word, f)
				}
			}
		}
	}
}

// FuzzValueExpressions: the split and gated expressions say what the
// single ones said, of any value.
func FuzzValueExpressions(f *testing.F) {
	f.Add("ghp_0123456789abcdef")
	f.Add("123456789:AA" + strings.Repeat("x", 33))
	f.Add("Authorization: x")
	f.Add("https://u:p@h")
	f.Add("QUJDREVGR0hJSktMTU5PUA==")
	f.Fuzz(func(t *testing.T, v string) { checkValueExpressions(t, v) })
}
