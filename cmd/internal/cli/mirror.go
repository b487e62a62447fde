package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"oras.land/oras-go/v2/content/oci"

	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/ociartifact"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/termsafe"
)

type mirrorOptions struct {
	Names []string
	To    string // mirror: oci://HOST[:PORT]/PREFIX
	Out   string // bundle: a directory
	JSON  bool
}

func newMirrorCmd(f *Factory) *cobra.Command {
	opts := &mirrorOptions{}
	cmd := &cobra.Command{
		Use:   "mirror [<name>...] --to oci://HOST[:PORT]/PREFIX",
		Short: "Push installed plugins' exact trees to an OCI registry",
		Long: `Push each installed plugin (all without names) to PREFIX/<name> in an OCI registry,
tagged with its version and its commit, annotated with its origin, commit and tree hash:
exactly the tree it was installed from. Other machines install from there, or sync
through it. Credentials come from docker login or oras login.`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Names = args
			if opts.To == "" {
				return usageErrorf("mirror needs --to oci://HOST[:PORT]/PREFIX")
			}
			return mirrorRun(c.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.To, "to", "", "the registry and repository prefix: oci://HOST[:PORT]/PREFIX")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON document")
	cmd.ValidArgsFunction = completePluginNames(f, true)
	return cmd
}

func newBundleCmd(f *Factory) *cobra.Command {
	opts := &mirrorOptions{}
	cmd := &cobra.Command{
		Use:   "bundle [<name>...] --out DIR",
		Short: "Write installed plugins' exact trees to an OCI image layout, for offline machines",
		Long: `Write each installed plugin (all without names) into DIR, an OCI image layout, as
mirror pushes it (tags <name>:<version> and <name>:<commit>). On a machine without
network, fledge plugins sync --file plugins.toml --from DIR installs from it exactly
what that plugins.toml records.`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Names = args
			if opts.Out == "" {
				return usageErrorf("bundle needs --out DIR")
			}
			return mirrorRun(c.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Out, "out", "", "the directory to write the image layout to")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON document")
	cmd.ValidArgsFunction = completePluginNames(f, true)
	return cmd
}

type mirrorResultJSON struct {
	Name      string     `json:"name"`
	Where     string     `json:"where"`
	Digest    string     `json:"digest"`
	Tags      []string   `json:"tags"`
	Refetched bool       `json:"refetched"`
	Error     *jsonError `json:"error"`
}

type mirrorDoc struct {
	SchemaVersion int                `json:"schema_version"`
	Action        string             `json:"action"`
	Results       []mirrorResultJSON `json:"results"`
}

func mirrorRun(ctx context.Context, f *Factory, opts *mirrorOptions) error {
	in, _, err := newInstaller(ctx, f, consentFlags{}, false)
	if err != nil {
		return err
	}
	action, dst := "mirror", install.Destination(nil)
	if opts.Out != "" {
		action = "bundle"
		store, err := oci.NewWithContext(ctx, opts.Out)
		if err != nil {
			return fmt.Errorf("--out %s: %w", opts.Out, err)
		}
		dst = func(_ context.Context, name string) (ociartifact.Target, string, string, error) {
			return store, name + ":", opts.Out, nil
		}
	} else {
		to, err := registry.ParseSource(opts.To, "")
		if err != nil || to.Kind != registry.SourceOCI || to.Ref != "" {
			return usageErrorf("--to %q: want oci://HOST[:PORT]/PREFIX (no tag: each plugin goes to PREFIX/<name>)", opts.To)
		}
		dst = func(ctx context.Context, name string) (ociartifact.Target, string, string, error) {
			where := to.URL + "/" + name
			repo, err := registry.ParseSource(where, "")
			if err != nil {
				return nil, "", where, fmt.Errorf("%s cannot be an OCI repository: %w", name, err)
			}
			r, err := in.OCI.Repository(ctx, repo.Host, repo.Repository)
			return r, "", where, err
		}
	}
	results, err := in.Mirror(ctx, opts.Names, dst)
	if err != nil {
		return err
	}
	doc := mirrorDoc{SchemaVersion: SchemaVersion, Action: action, Results: []mirrorResultJSON{}}
	var failures []error
	for _, r := range results {
		j := mirrorResultJSON{Name: r.Name, Where: r.Where, Digest: r.Digest, Tags: r.Tags, Refetched: r.Refetched}
		if j.Tags == nil {
			j.Tags = []string{}
		}
		if r.Err != nil {
			failures = append(failures, r.Err)
			j.Error = toJSONError(r.Err)
		}
		doc.Results = append(doc.Results, j)
	}
	if opts.JSON {
		if err := writeJSON(f.IO.Out, doc); err != nil {
			return err
		}
	} else {
		st := f.IO.OutStyle()
		if len(doc.Results) == 0 {
			fmt.Fprintln(f.IO.ErrOut, "No plugins installed.")
		}
		for _, r := range doc.Results {
			if r.Error != nil {
				fmt.Fprintf(f.IO.Out, "%s %s: %s\n", st.Fail("✗"), termsafe.Escape(r.Name), r.Error.Message)
				continue
			}
			fmt.Fprintf(f.IO.Out, "%s %s → %s (%s)\n", st.OK("✓"), termsafe.Escape(r.Name), termsafe.Line(r.Where), r.Digest)
		}
	}
	if len(failures) > 0 {
		return itemsFailed(failures)
	}
	return nil
}
