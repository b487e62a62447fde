package cli

import (
	"bytes"

	"github.com/spf13/cobra"
)

// CommandTree returns fledge's command tree, for generating its manual
// pages (cmd/internal/gendocs). Nothing in it runs: it only describes.
func CommandTree(version string) *cobra.Command {
	var buf bytes.Buffer
	s := &IOStreams{In: &buf, Out: &buf, ErrOut: &buf, Getenv: func(string) string { return "" }}
	root := newRootCmd(NewFactory(s, version))
	root.InitDefaultHelpCmd()
	root.DisableAutoGenTag = true
	return root
}
