package catalog

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/policy"
)

// MaxToolName is the longest tool name MCP allows.
const MaxToolName = 128

// name gives every tool its name (see the package doc), sorts the tools by
// it and records the collisions. Tools are first put in (plugin, command)
// order, so the outcome never depends on plugins.toml's order.
func (c *Catalog) name() {
	slices.SortFunc(c.Tools, func(a, b *Tool) int {
		return cmp.Or(cmp.Compare(a.Plugin, b.Plugin), cmp.Compare(a.Command, b.Command))
	})
	providers := map[string][]*Tool{}
	for _, t := range c.Tools {
		providers[t.Command] = append(providers[t.Command], t)
	}
	taken := map[string]bool{}
	for cmd, ts := range providers {
		if len(ts) == 1 {
			ts[0].Name = cmd
			taken[cmd] = true
		}
	}
	commands := make([]string, 0, len(providers))
	for cmd, ts := range providers {
		if len(ts) > 1 {
			commands = append(commands, cmd)
		}
	}
	slices.Sort(commands)
	for _, cmd := range commands {
		col := Collision{Command: cmd}
		for _, t := range providers[cmd] {
			t.Name = qualified(t, taken)
			taken[t.Name] = true
			col.Plugins = append(col.Plugins, t.Plugin)
			col.Tools = append(col.Tools, t.Name)
		}
		c.Collisions = append(c.Collisions, col)
	}
	slices.SortFunc(c.Tools, func(a, b *Tool) int { return cmp.Compare(a.Name, b.Name) })
}

// qualified names a tool whose command another plugin provides too.
func qualified(t *Tool, taken map[string]bool) string {
	for _, n := range []string{lockfile.ShortName(t.Plugin) + "." + t.Command, t.Plugin + "." + t.Command} {
		if len(n) <= MaxToolName && !taken[n] {
			return n
		}
	}
	sum := sha256.Sum256([]byte(t.Plugin + "\x00" + t.Command))
	base := t.Plugin + "." + t.Command
	if len(base) > MaxToolName-9 {
		base = base[:MaxToolName-9]
	}
	h := base + "_" + hex.EncodeToString(sum[:4])
	n := h
	for i := 2; taken[n]; i++ {
		suffix := "_" + strconv.Itoa(i)
		n = h[:min(len(h), MaxToolName-len(suffix))] + suffix
	}
	return n
}

// Names are the names a tool pattern (policy.CheckToolPattern) matches the
// tool by: its name, then <plugin-short>.<command> and
// <plugin>.<command>, whatever name it got.
func (t *Tool) Names() []string {
	names := []string{t.Name}
	for _, n := range []string{lockfile.ShortName(t.Plugin) + "." + t.Command, t.Plugin + "." + t.Command} {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// offer keeps the tools the policy offers agents, and moves the rest to
// Skipped with the rule that keeps each from them.
func (c *Catalog) offer(pol *policy.Set) {
	c.Tools = slices.DeleteFunc(c.Tools, func(t *Tool) bool {
		d := pol.OffersTool(t.Names())
		if d != nil {
			c.Skipped = append(c.Skipped, Skipped{Plugin: t.Plugin, Command: t.Command, Reason: "the policy: " + d.Text()})
		}
		return d != nil
	})
}
