package cli

import (
	"context"
	"os"
	"testing"
)

// MainWithSystemPolicy is Main with the system policy file at path ("" for
// none): how tests give fledge a system policy without writing to /etc.
// fledge itself has no such switch; its system policy is always
// policy.SystemPath().
func MainWithSystemPolicy(args []string, s *IOStreams, version, path string) int {
	f := NewFactory(s, version)
	f.SystemPolicy = path
	ctx, stop := f.interrupts.Notify(context.Background())
	defer stop()
	return run(ctx, f, args)
}

// BuildFledge is the package's tests' one build of ./cmd/fledge, for the
// external tests too; RemoveBuiltFledge deletes it when they are done.
func BuildFledge(t *testing.T) string { return buildFledge(t) }

func RemoveBuiltFledge() {
	if builtFledge.dir != "" {
		os.RemoveAll(builtFledge.dir)
	}
}

// WrapMark ends a line a review page broke (hardWrap).
const WrapMark = wrapMark
