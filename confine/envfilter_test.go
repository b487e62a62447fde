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
