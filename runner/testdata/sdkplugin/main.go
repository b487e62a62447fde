// Command sdkplugin is one plugin written with pluginsdk, built both as a
// native binary and for GOOS=wasip1: the runner's tests run the two and
// expect the same conversation and output.
package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/corvidlabs/fledge-go/pluginsdk"
	"github.com/corvidlabs/fledge-go/protocol"
)

func main() {
	pluginsdk.Main(func(p *pluginsdk.IO, init *protocol.Init) error {
		name, err := p.Prompt("Name?", "world", protocol.ValidateNonEmpty)
		if err != nil {
			return err
		}
		ok, err := p.Confirm("Sure?", false)
		if err != nil {
			return err
		}
		pick, err := p.Select("Pick", []string{"a", "b", "c"}, "a")
		if err != nil {
			return err
		}
		many, err := p.MultiSelect("Many", []string{"x", "y", "z"}, nil)
		if err != nil {
			return err
		}
		if err := p.Progress("working", 1, 2); err != nil {
			return err
		}
		if err := p.Store("last", name); err != nil {
			return err
		}
		last, found, err := p.Load("last")
		if err != nil {
			return err
		}
		res, err := p.Exec("echo from-exec", "", 10*time.Second)
		if err != nil {
			return err
		}
		meta, err := p.Metadata("git_tags")
		if err != nil {
			return err
		}
		_ = p.ProgressDone()
		_ = p.Log(pluginsdk.LevelInfo, "done")
		return p.Outputf("hello %s %v %s %s last=%s/%v exec=%d:%s meta=%d args=%s\n",
			name, ok, pick, strings.Join(many, ","), last, found, res.Code, strings.TrimSpace(res.Stdout), len(meta),
			fmt.Sprint(init.Args))
	})
}
