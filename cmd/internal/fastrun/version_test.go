package fastrun

import (
	"runtime/debug"
	"testing"
)

func TestVersionFromBuildInfo(t *testing.T) {
	t.Parallel()
	mod := func(v string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "github.com/corvidlabs/fledge-go", Version: v}}
	}
	for _, tc := range []struct {
		stamped string
		bi      *debug.BuildInfo
		ok      bool
		want    string
	}{
		{"1.2.3", mod("v9.9.9"), true, "1.2.3"}, // the release stamp wins
		{"dev", mod("v1.4.0"), true, "1.4.0"},   // go install …@v1.4.0
		{"", mod("v1.4.1-0.20260101000000-abcdef123456"), true, "1.4.1-0.20260101000000-abcdef123456"},
		{"dev", mod("(devel)"), true, "dev"}, // a checkout's go build
		{"dev", nil, false, "dev"},
	} {
		if got := versionFrom(tc.stamped, tc.bi, tc.ok); got != tc.want {
			t.Errorf("versionFrom(%q, %v) = %q, want %q", tc.stamped, tc.bi, got, tc.want)
		}
	}
}
