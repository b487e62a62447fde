package manifest

import (
	"errors"
	"strings"
	"testing"
)

const validBase = `[plugin]
name = "fledge-plugin-ok"
version = "1.2.3"
description = "fine"
author = "me"

[[commands]]
name = "ok"
binary = "bin/ok"
`

// want describes one expected finding: its severity, the field it names,
// and words its message must hold.
type want struct {
	sev   Severity
	field string
	words []string
}

func TestValidate(t *testing.T) {
	plugin := func(name, version, extra string) string {
		return "[plugin]\nname = " + name + "\nversion = " + version + "\n" + extra +
			"\n[[commands]]\nname = \"ok\"\nbinary = \"bin/ok\"\n"
	}
	cmds := func(body string) string {
		return "[plugin]\nname = \"p\"\nversion = \"1.0.0\"\n" + body
	}
	cases := []struct {
		name string
		toml string
		want []want // every one must be found
		// clean means no error-level finding may appear.
		clean bool
	}{
		{name: "valid", toml: validBase, clean: true},
		{name: "dots underscores digits", toml: plugin(`"a1_b.c-d"`, `"0.0.1"`, ""), clean: true},
		{name: "prerelease and build", toml: plugin(`"p"`, `"1.0.0-rc.1+build.5"`, ""), clean: true},

		// plugin.name
		{name: "name missing", toml: plugin(`""`, `"1.0.0"`, ""), want: []want{{SeverityError, "plugin.name", []string{"missing"}}}},
		{name: "name slash", toml: plugin(`"a/b"`, `"1.0.0"`, ""), want: []want{{SeverityError, "plugin.name", []string{"path separator"}}}},
		{name: "name backslash", toml: plugin(`"a\\b"`, `"1.0.0"`, ""), want: []want{{SeverityError, "plugin.name", []string{"path separator"}}}},
		{name: "name dotdot", toml: plugin(`".."`, `"1.0.0"`, ""), want: []want{{SeverityError, "plugin.name", []string{"'.'"}}}},
		{name: "name leading dot", toml: plugin(`".hidden"`, `"1.0.0"`, ""), want: []want{{SeverityError, "plugin.name", []string{"'.'"}}}},
		{name: "name leading dash", toml: plugin(`"-rf"`, `"1.0.0"`, ""), want: []want{{SeverityError, "plugin.name", []string{"'-'", "flag"}}}},
		{name: "name control", toml: plugin(`"a\u001bb"`, `"1.0.0"`, ""), want: []want{{SeverityError, "plugin.name", []string{"control"}}}},
		{name: "name newline", toml: plugin(`"a\nb"`, `"1.0.0"`, ""), want: []want{{SeverityError, "plugin.name", nil}}},
		{name: "name NUL", toml: plugin(`"a\u0000b"`, `"1.0.0"`, ""), want: []want{{SeverityError, "plugin.name", []string{"control"}}}},
		{name: "name unicode", toml: plugin(`"plügin"`, `"1.0.0"`, ""), want: []want{{SeverityError, "plugin.name", []string{"ASCII"}}}},
		{name: "name bidi", toml: plugin(`"ab\u202Ecd"`, `"1.0.0"`, ""), want: []want{{SeverityError, "plugin.name", nil}}},
		{name: "name space", toml: plugin(`"a b"`, `"1.0.0"`, ""), want: []want{{SeverityError, "plugin.name", nil}}},
		{name: "name too long", toml: plugin(`"`+strings.Repeat("a", 101)+`"`, `"1.0.0"`, ""), want: []want{{SeverityError, "plugin.name", []string{"100"}}}},
		{name: "name 100 ok", toml: plugin(`"`+strings.Repeat("a", 100)+`"`, `"1.0.0"`, ""), clean: true},

		// plugin.version
		{name: "version missing", toml: plugin(`"p"`, `""`, ""), want: []want{{SeverityError, "plugin.version", []string{"missing"}}}},
		{name: "version leading v", toml: plugin(`"p"`, `"v1.0.0"`, ""), want: []want{{SeverityError, "plugin.version", []string{"v1.0.0", "semantic"}}}},
		{name: "version two parts", toml: plugin(`"p"`, `"1.0"`, ""), want: []want{{SeverityError, "plugin.version", nil}}},
		{name: "version words", toml: plugin(`"p"`, `"latest"`, ""), want: []want{{SeverityError, "plugin.version", nil}}},
		{name: "version leading zero", toml: plugin(`"p"`, `"01.0.0"`, ""), want: []want{{SeverityError, "plugin.version", nil}}},

		// protocol and runtime
		{name: "protocol v1", toml: plugin(`"p"`, `"1.0.0"`, `protocol = "fledge-v1"`), clean: true},
		{name: "protocol v2", toml: plugin(`"p"`, `"1.0.0"`, `protocol = "fledge-v2"`), want: []want{{SeverityError, "plugin.protocol", []string{"fledge-v2", "upgrade"}}}},
		{name: "protocol junk", toml: plugin(`"p"`, `"1.0.0"`, `protocol = "json-rpc"`), want: []want{{SeverityError, "plugin.protocol", []string{"json-rpc"}}}},
		{name: "runtime native", toml: plugin(`"p"`, `"1.0.0"`, `runtime = "native"`), clean: true},
		{name: "runtime wasm", toml: plugin(`"p"`, `"1.0.0"`, "runtime = \"wasm\"\nprotocol = \"fledge-v1\""), clean: true},
		{name: "runtime jvm", toml: plugin(`"p"`, `"1.0.0"`, `runtime = "jvm"`), want: []want{{SeverityError, "plugin.runtime", []string{"jvm"}}}},
		{name: "description control", toml: plugin(`"p"`, `"1.0.0"`, `description = "hi\u001b[2J"`), clean: true,
			want: []want{{SeverityWarning, "plugin.description", []string{"control", "escaped"}}}},

		// commands
		{name: "output json", toml: cmds("[[commands]]\nname = \"j\"\nbinary = \"bin/j\"\noutput = \"json\"\noutput_schema = '{\"type\": \"object\"}'\n"), clean: true},
		{name: "output yaml", toml: cmds("[[commands]]\nname = \"j\"\nbinary = \"bin/j\"\noutput = \"yaml\"\n"),
			want: []want{{SeverityError, "commands[0] (j).output", []string{"yaml"}}}},
		{name: "output schema without json", toml: cmds("[[commands]]\nname = \"j\"\nbinary = \"bin/j\"\noutput_schema = '{\"type\": \"object\"}'\n"),
			want: []want{{SeverityError, "commands[0] (j).output_schema", []string{"json"}}}},
		{name: "output schema not json", toml: cmds("[[commands]]\nname = \"j\"\nbinary = \"bin/j\"\noutput = \"json\"\noutput_schema = '{type'\n"),
			want: []want{{SeverityError, "commands[0] (j).output_schema", []string{"JSON"}}}},
		{name: "output schema array", toml: cmds("[[commands]]\nname = \"j\"\nbinary = \"bin/j\"\noutput = \"json\"\noutput_schema = '{\"type\": \"array\"}'\n"),
			want: []want{{SeverityError, "commands[0] (j).output_schema", []string{"object"}}}},
		{name: "no commands", toml: "[plugin]\nname = \"p\"\nversion = \"1.0.0\"\n", clean: true,
			want: []want{{SeverityWarning, "commands", []string{"no [[commands]]"}}}},
		{name: "duplicate command", toml: cmds("[[commands]]\nname = \"x\"\nbinary = \"a\"\n[[commands]]\nname = \"x\"\nbinary = \"b\"\n"),
			want: []want{{SeverityError, "commands[1] (x).name", []string{"duplicates commands[0]"}}}},
		{name: "commands differing only by case", toml: cmds("[[commands]]\nname = \"deploy\"\nbinary = \"a\"\n[[commands]]\nname = \"Deploy\"\nbinary = \"b\"\n"),
			want: []want{{SeverityError, "commands[1] (Deploy).name", []string{`"Deploy"`, `"deploy"`, "commands[0]", "only by case"}}}},
		{name: "reserved command plugins", toml: cmds("[[commands]]\nname = \"plugins\"\nbinary = \"a\"\n"),
			want: []want{{SeverityError, "commands[0] (plugins).name", []string{"fledge's own"}}}},
		{name: "reserved command help", toml: cmds("[[commands]]\nname = \"help\"\nbinary = \"a\"\n"),
			want: []want{{SeverityError, "commands[0] (help).name", nil}}},
		{name: "command slash", toml: cmds("[[commands]]\nname = \"a/b\"\nbinary = \"a\"\n"),
			want: []want{{SeverityError, "commands[0] (a/b).name", []string{"path separator"}}}},
		{name: "command dash", toml: cmds("[[commands]]\nname = \"--help\"\nbinary = \"a\"\n"),
			want: []want{{SeverityError, "commands[0] (--help).name", nil}}},
		{name: "command unnamed", toml: cmds("[[commands]]\nbinary = \"a\"\n"),
			want: []want{{SeverityError, "commands[0].name", []string{"missing"}}}},
		{name: "command unicode", toml: cmds("[[commands]]\nname = \"ça\"\nbinary = \"a\"\n"),
			want: []want{{SeverityError, "commands[0] (ça).name", nil}}},

		// binary paths
		{name: "binary in .git", toml: cmds("[[commands]]\nname = \"x\"\nbinary = \".git/run\"\n"),
			want: []want{{SeverityError, "commands[0] (x).binary", []string{".git", "outside .git"}}}},
		{name: "binary parent", toml: cmds("[[commands]]\nname = \"x\"\nbinary = \"../x\"\n"),
			want: []want{{SeverityError, "commands[0] (x).binary", []string{"leaves"}}}},
		{name: "binary sneaky parent", toml: cmds("[[commands]]\nname = \"x\"\nbinary = \"bin/../../x\"\n"),
			want: []want{{SeverityError, "commands[0] (x).binary", []string{"leaves"}}}},
		{name: "binary absolute", toml: cmds("[[commands]]\nname = \"x\"\nbinary = \"/usr/bin/env\"\n"),
			want: []want{{SeverityError, "commands[0] (x).binary", []string{"absolute"}}}},
		{name: "binary backslash absolute", toml: cmds("[[commands]]\nname = \"x\"\nbinary = '\\evil'\n"),
			want: []want{{SeverityError, "commands[0] (x).binary", []string{"absolute"}}}},
		{name: "binary empty", toml: cmds("[[commands]]\nname = \"x\"\nbinary = \"\"\n"),
			want: []want{{SeverityError, "commands[0] (x).binary", []string{"missing"}}}},
		{name: "binary absent", toml: cmds("[[commands]]\nname = \"x\"\n"),
			want: []want{{SeverityError, "commands[0] (x).binary", []string{"missing"}}}},
		{name: "binary control", toml: cmds("[[commands]]\nname = \"x\"\nbinary = \"bin/\\u001bx\"\n"),
			want: []want{{SeverityError, "commands[0] (x).binary", []string{"control"}}}},
		{name: "binary inner dotdot ok", toml: cmds("[[commands]]\nname = \"x\"\nbinary = \"bin/../run\"\n"), clean: true},

		// args
		{name: "args ok", toml: cmds("[[commands]]\nname = \"x\"\nbinary = \"x\"\n[[commands.args]]\nname = \"a\"\ntype = \"string\"\nrequired = true\n[[commands.args]]\nname = \"b\"\ntype = \"integer\"\n"), clean: true},
		{name: "args unknown type", toml: cmds("[[commands]]\nname = \"x\"\nbinary = \"x\"\n[[commands.args]]\nname = \"a\"\ntype = \"path\"\n"), clean: true,
			want: []want{{SeverityWarning, "commands[0] (x).args[0].type", []string{"path"}}}},
		{name: "args missing type", toml: cmds("[[commands]]\nname = \"x\"\nbinary = \"x\"\n[[commands.args]]\nname = \"a\"\n"), clean: true,
			want: []want{{SeverityWarning, "commands[0] (x).args[0].type", nil}}},
		{name: "args duplicate", toml: cmds("[[commands]]\nname = \"x\"\nbinary = \"x\"\n[[commands.args]]\nname = \"a\"\ntype = \"string\"\n[[commands.args]]\nname = \"a\"\ntype = \"string\"\n"),
			want: []want{{SeverityError, "commands[0] (x).args[1].name", []string{"duplicate"}}}},
		{name: "args unnamed", toml: cmds("[[commands]]\nname = \"x\"\nbinary = \"x\"\n[[commands.args]]\ntype = \"string\"\n"),
			want: []want{{SeverityError, "commands[0] (x).args[0].name", []string{"missing"}}}},
		{name: "args required after optional", toml: cmds("[[commands]]\nname = \"x\"\nbinary = \"x\"\n[[commands.args]]\nname = \"a\"\ntype = \"string\"\n[[commands.args]]\nname = \"b\"\ntype = \"string\"\nrequired = true\n"), clean: true,
			want: []want{{SeverityWarning, "commands[0] (x).args[1].required", []string{"follows an optional"}}}},

		// legacy and unknown keys
		{name: "legacy commands", toml: plugin(`"p"`, `"1.0.0"`, "[plugin.commands.hello]\ndescription = \"hi\"\nusage = \"fledge hello\"\n"), clean: true,
			want: []want{{SeverityWarning, "plugin.commands", []string{"[[commands]]"}}}},
		{name: "unknown keys", toml: validBase + "homepage = \"x\"\n[extra]\nfoo = 1\n", clean: true,
			want: []want{{SeverityWarning, "commands.homepage", []string{"unknown"}}, {SeverityWarning, "extra", []string{"unknown"}}}},
		{name: "unknown plugin key", toml: plugin(`"p"`, `"1.0.0"`, `homepage = "https://x"`), clean: true,
			want: []want{{SeverityWarning, "plugin.homepage", []string{"unknown"}}}},
		{name: "unknown capability", toml: validBase + "[capabilities]\nexec = true\ngpu = true\n", clean: true,
			want: []want{{SeverityWarning, "capabilities.gpu", []string{"unknown"}}}},
		{name: "unknown hook", toml: validBase + "[hooks]\npre_commit = \"x\"\n", clean: true,
			want: []want{{SeverityWarning, "hooks.pre_commit", []string{"unknown"}}}},
		{name: "hook NUL", toml: validBase + "[hooks]\nbuild = \"make\\u0000x\"\n",
			want: []want{{SeverityError, "hooks.build", []string{"U+0000", "byte 5"}}}},
		// What runs is shown byte-exact: a hook holding anything the
		// sanitiser would remove (here the 8-bit OSC … BEL that hid a
		// payload on the approval form) is an error, naming the field.
		{name: "hook hidden by 8-bit osc", toml: validBase + "[hooks]\nbuild = \"make #\u009d\\ntouch $HOME/pwned\\n#\\u0007\"\n",
			want: []want{{SeverityError, "hooks.build", []string{"U+009D", "byte 7", "byte-exact"}}}},
		{name: "hook hidden by 7-bit osc", toml: validBase + "[hooks]\npost_install = \"make #\\u001b]0;\\ntouch x\\n#\\u0007\"\n",
			want: []want{{SeverityError, "hooks.post_install", []string{"U+001B", "ESC"}}}},
		{name: "hook bidi", toml: validBase + "[hooks]\npost_remove = \"rm -rf ./cache \\u202e\"\n",
			want: []want{{SeverityError, "hooks.post_remove", []string{"U+202E"}}}},
		{name: "hook zero width", toml: validBase + "[hooks]\npre_init = \"a\\u200bb\"\n",
			want: []want{{SeverityError, "hooks.pre_init", []string{"U+200B"}}}},
		{name: "hook carriage return", toml: validBase + "[hooks]\npost_work_start = \"safe\\rEVIL\"\n",
			want: []want{{SeverityError, "hooks.post_work_start", []string{"carriage return"}}}},
		{name: "hook crlf", toml: validBase + "[hooks]\npre_push = \"\"\"\r\nmake\r\n\"\"\"\n",
			want: []want{{SeverityError, "hooks.pre_push", []string{"LF line endings"}}}},
		// What runs is seen whole: padding that scrolls the head of a
		// hook off an 80x40 approval screen is an error too.
		{name: "hook padded with spaces", toml: validBase + "[hooks]\nbuild = \"touch /tmp/PWNED;" + strings.Repeat(" ", 6000) + "make\"\n",
			want: []want{{SeverityError, "hooks.build", []string{"a run of 6000 spaces at byte 18", "out of sight", "whole"}}}},
		{name: "hook padded with blank lines", toml: validBase + "[hooks]\npost_install = \"touch x" + strings.Repeat("\\n", 80) + "make\"\n",
			want: []want{{SeverityError, "hooks.post_install", []string{"79 blank lines in a row at byte 9"}}}},
		{name: "hook too long to see whole", toml: validBase + "[hooks]\npre_push = \"touch x;" + strings.Repeat(":;", 3000) + "\"\n",
			want: []want{{SeverityError, "hooks.pre_push", []string{"6008 bytes", "in a file"}}}},
		{name: "hook newline and tab", toml: validBase + "[hooks]\nbuild = '''\nmake \\\n\tall\necho 'a\\nb'\n'''\n", clean: true},
		{name: "binary bidi", toml: cmds("[[commands]]\nname = \"x\"\nbinary = \"bin/\\u202ex\"\n"),
			want: []want{{SeverityError, "commands[0] (x).binary", []string{"U+202E"}}}},
		{name: "binary newline", toml: cmds("[[commands]]\nname = \"x\"\nbinary = \"bin/a\\nb\"\n"),
			want: []want{{SeverityError, "commands[0] (x).binary", []string{"newline"}}}},
		{name: "filesystem unknown scope", toml: validBase + "[capabilities]\nfilesystem = \"everything\"\n", clean: true,
			want: []want{{SeverityWarning, "capabilities.filesystem", []string{"everything", "explicit grant", `"none"`, `"project"`, `"plugin"`}}}},
		{name: "filesystem project", toml: validBase + "[capabilities]\nfilesystem = \"project\"\n", clean: true},
		{name: "filesystem plugin", toml: validBase + "[capabilities]\nfilesystem = \"plugin\"\n", clean: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse([]byte(tc.toml))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			ps := m.Validate()
			if tc.clean {
				if errs := ps.Errors(); len(errs) > 0 {
					t.Errorf("unexpected errors: %v", errs)
				}
				if err := ps.Err(); err != nil {
					t.Errorf("Err() = %v, want nil", err)
				}
			}
			for _, w := range tc.want {
				if !hasProblem(ps, w) {
					t.Errorf("missing %s on %s with %q; got:\n%s", w.sev, w.field, w.words, dump(ps))
				}
			}
			// Every error surfaces through Err as an *InvalidError whose
			// message names the field.
			if errs := ps.Errors(); len(errs) > 0 {
				var ie *InvalidError
				if err := ps.Err(); !errors.As(err, &ie) || len(ie.Problems) != len(errs) {
					t.Errorf("Err() = %v, want *InvalidError with %d problems", err, len(errs))
				} else {
					for _, p := range errs {
						if !strings.Contains(err.Error(), p.Field) {
							t.Errorf("message %q lacks field %s", err, p.Field)
						}
					}
				}
			}
			// Every problem says how to fix it.
			for _, p := range ps {
				if p.Fix == "" {
					t.Errorf("%s has no fix", p)
				}
			}
		})
	}
}

func hasProblem(ps Problems, w want) bool {
	for _, p := range ps {
		if p.Severity != w.sev || p.Field != w.field {
			continue
		}
		ok := true
		for _, word := range w.words {
			if !strings.Contains(p.Message+" "+p.Fix, word) {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func dump(ps Problems) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("  " + string(p.Severity) + " " + p.String() + "\n")
	}
	return b.String()
}

func TestCheckProtocol(t *testing.T) {
	for _, p := range []string{"", "fledge-v1"} {
		m := &Manifest{Plugin: Plugin{Protocol: p}}
		if err := m.CheckProtocol(); err != nil {
			t.Errorf("protocol %q: %v", p, err)
		}
	}
	m := &Manifest{Plugin: Plugin{Protocol: "fledge-v2"}}
	err := m.CheckProtocol()
	var pe *ProtocolError
	if !errors.As(err, &pe) || pe.Protocol != "fledge-v2" || !errors.Is(err, ErrUnsupportedProtocol) {
		t.Fatalf("CheckProtocol = %v, want *ProtocolError wrapping ErrUnsupportedProtocol", err)
	}
	if !strings.Contains(err.Error(), "fledge-v2") || !strings.Contains(err.Error(), "upgrade") {
		t.Errorf("message %q should name the protocol and suggest upgrading", err)
	}
}

func TestParseTypeErrorsNameTheLine(t *testing.T) {
	cases := map[string]string{
		"[plugin]\nname = \"p\"\nversion = \"1.0.0\"\n[capabilities]\nexec = \"yes\"\n": "line 5",
		"[plugin]\nname = 3\n":                   "line 2",
		"[plugin\nname = \"p\"\n":                "line 1",
		"[[commands]]\nname = [\"a\"]\n":         "line 2",
		"[plugin]\nname = \"p\"\nname = \"q\"\n": "line 3",
	}
	for in, where := range cases {
		_, err := Parse([]byte(in))
		if err == nil {
			t.Errorf("Parse(%q) succeeded", in)
			continue
		}
		if !strings.Contains(err.Error(), where) || !strings.Contains(err.Error(), "plugin.toml") {
			t.Errorf("Parse(%q) = %q, want it to name plugin.toml and %s", in, err, where)
		}
	}
}

func TestCapabilitiesParsed(t *testing.T) {
	m, err := Parse([]byte(validBase + "[capabilities]\nexec = true\nstore = true\nmetadata = false\nnetwork = true\nfilesystem = \"project\"\n[hooks]\nbuild = \"make\"\npost_install = \"./setup.sh\"\npre_push = \"x\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Capabilities{Exec: true, Store: true, Network: true, Filesystem: "project"}
	if !m.Capabilities.Equal(want) {
		t.Errorf("capabilities = %+v, want %+v", m.Capabilities, want)
	}
	if got := JoinCapabilities(m.Capabilities.List()); got != "exec, store, network, filesystem" {
		t.Errorf("List = %q", got)
	}
	hooks := m.Hooks.Map()
	if len(hooks) != 3 || hooks["build"] != "make" || hooks["post_install"] != "./setup.sh" || hooks["pre_push"] != "x" {
		t.Errorf("hooks = %v", hooks)
	}
	if len(m.Unknown) != 0 {
		t.Errorf("Unknown = %v", m.Unknown)
	}
}

// TestEnvironmentEntries: an environment entry is a variable name or a
// prefix ending in '*'; anything else is an error naming the entry.
func TestEnvironmentEntries(t *testing.T) {
	base := "[plugin]\nname = \"p\"\nversion = \"1.0.0\"\n[[commands]]\nname = \"p\"\nbinary = \"bin/p\"\n[capabilities]\n"
	for entry, bad := range map[string]bool{`"GITHUB_TOKEN"`: false, `"AWS_*"`: false, `"npm_config_x"`: false,
		`"*"`: true, `"9LIVES"`: true, `"A-B"`: true, `"A*B"`: true, `""`: true} {
		m, err := Parse([]byte(base + "environment = [" + entry + "]\n"))
		if err != nil {
			t.Fatalf("%s: %v", entry, err)
		}
		found := false
		for _, p := range m.Validate() {
			if strings.HasPrefix(p.Field, "capabilities.environment[0]") && p.Severity == SeverityError {
				found = true
			}
		}
		if found != bad {
			t.Errorf("environment = [%s]: error %v, want %v", entry, found, bad)
		}
	}
}
