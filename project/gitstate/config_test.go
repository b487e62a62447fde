package gitstate

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
)

// decoderAnswer is what the one-process path took from a config file
// with go-git's config decoder, which readConfig replaced: the remotes
// (each subsection's first url) and the insteadOf rewrites.
func decoderAnswer(data []byte) (remotes []remote, insteadOf [][2]string, ok bool) {
	var c gitconfig.Config
	if err := gitconfig.NewDecoder(bytes.NewReader(data)).Decode(&c); err != nil {
		return nil, nil, false
	}
	for _, s := range c.Sections {
		switch {
		case s.IsName("remote"):
			for _, sub := range s.Subsections {
				if urls := sub.Options.GetAll("url"); len(urls) > 0 && !hasRemote(remotes, sub.Name) {
					remotes = append(remotes, remote{sub.Name, urls[0]})
				}
			}
		case s.IsName("url"):
			for _, sub := range s.Subsections {
				for _, v := range sub.Options.GetAll("insteadof") {
					insteadOf = append(insteadOf, [2]string{v, sub.Name})
				}
			}
		}
	}
	return remotes, insteadOf, true
}

// configs are files as git and people write them.
var configs = []string{
	"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n" +
		"[remote \"origin\"]\n\turl = https://github.com/o/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n" +
		"[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n",
	"[user]\n\tname = A Person\n\temail = a@example.com\n[url \"https://github.com/\"]\n\tinsteadOf = gh:\n\tInsteadOf = github:\n",
	"# a comment\n; another\n[Remote \"up\"]\n  URL = git@example.com:x/y.git\n  url = https://second\n[remote \"a\"]\n\tfetch = x\n[remote \"b\"]\n\turl = B\n[remote \"a\"]\n\turl = A\n",
	"[remote \"Origin\"]\n\turl =\n[remote \"origin\"]\n\turl = two  words\n",
}

// A global config with aliases (quoting, ';' and '#' in values fledge does
// not read) is taken: its remotes and rewrites are read as before.
func TestReadConfigSkipsWhatItDoesNotNeed(t *testing.T) {
	c := "[alias]\n\tlg = log --graph --pretty=format:'%h %s' # mine\n\tsh = \"!f() { echo a; }; f\"\n" +
		"[url \"https://github.com/\"]\n\tinsteadOf = gh:\n"
	r, i, ok := readConfig([]byte(c))
	if !ok || len(r) != 0 || !reflect.DeepEqual(i, [][2]string{{"gh:", "https://github.com/"}}) {
		t.Fatalf("readConfig: %v %v %v", r, i, ok)
	}
}

// On every file it takes, readConfig answers as go-git's decoder did.
func TestReadConfigAnswersAsTheDecoder(t *testing.T) {
	for _, c := range configs {
		r, i, ok := readConfig([]byte(c))
		if !ok {
			t.Errorf("not taken:\n%s", c)
			continue
		}
		wr, wi, wok := decoderAnswer([]byte(c))
		if !wok || !reflect.DeepEqual(r, wr) || !reflect.DeepEqual(i, wi) {
			t.Errorf("%s\nreadConfig %v %v, decoder %v %v %v", c, r, i, wr, wi, wok)
		}
	}
}

// What it does not read with certainty, it does not take.
func TestReadConfigRefusesWhatItDoesNotRead(t *testing.T) {
	for _, c := range []string{
		"[remote \"o\"]\n\turl = \"quoted\"\n",
		"[remote \"o\"]\n\turl = a\\\n b\n",
		"[remote \"o\"]\n\turl = a # comment\n",
		"[remote \"o\"]\n\turl = a ; comment\n",
		"[remote \"o\\\"x\"]\n\turl = a\n",
		"[remote.o]\n\turl = a\n",
		"[remote \"o\"] url = a\n",
		"[remote \"o\"]\n\tbare\n",
		"[remote \"o\"\n\turl = a\n",
		"[remote  \"o\"]\n\turl = a\n",
		"[remote \"o\"]\n\t_url = a\n",
	} {
		if _, _, ok := readConfig([]byte(c)); ok {
			t.Errorf("taken:\n%s", c)
		}
	}
}

// skippedPlain is data with the values readConfig skips unread replaced by
// a plain one: what the decoder must answer as readConfig does, whatever
// those values hold (the decoder refuses quoting git takes).
func skippedPlain(data []byte) []byte {
	var out []byte
	keep := ""
	for line := range bytes.Lines(data) {
		l := strings.Trim(string(line), " \t\r\n")
		if strings.HasPrefix(l, "[") {
			keep = ""
			if name, sub, ok := configHeader(l); ok && sub != nil {
				switch strings.ToLower(name) {
				case "remote":
					keep = "url"
				case "url":
					keep = "insteadof"
				}
			}
		} else if name, _, ok := strings.Cut(l, "="); ok && !strings.EqualFold(strings.TrimRight(name, " \t"), keep) && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, ";") {
			line = []byte(name + "= x\n")
		}
		out = append(out, line...)
	}
	return out
}

func FuzzReadConfig(f *testing.F) {
	for _, c := range configs {
		f.Add([]byte(c))
	}
	f.Add([]byte("[alias]\n\tlg = log --pretty='%h ; #' \"a;b\"\n[remote \"o\"]\n\turl = u\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, i, ok := readConfig(data)
		if !ok {
			return
		}
		wr, wi, wok := decoderAnswer(skippedPlain(data))
		if !wok || !reflect.DeepEqual(r, wr) || !reflect.DeepEqual(i, wi) {
			t.Fatalf("%q\nreadConfig %v %v, decoder %v %v (decoded: %v)", data, r, i, wr, wi, wok)
		}
	})
}
