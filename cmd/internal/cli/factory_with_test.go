package cli

import (
	"bytes"
	"context"
	"strings"
)

// fledgeWith runs fledge with a Factory that set changes.
func (f *e2eFixture) fledgeWith(set func(*Factory), args ...string) (code int, stdout, stderr string) {
	f.t.Helper()
	var out, errOut bytes.Buffer
	s := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Getenv: func(k string) string { return f.env[k] }}
	fac := NewFactory(s, "test")
	set(fac)
	code = run(context.Background(), fac, args)
	return code, out.String(), errOut.String()
}

// fledgeWithSystem runs fledge with the system policy at sys.
func (f *e2eFixture) fledgeWithSystem(sys string, args ...string) (code int, stdout, stderr string) {
	f.t.Helper()
	return f.fledgeWith(func(fac *Factory) { fac.SystemPolicy = sys }, args...)
}
