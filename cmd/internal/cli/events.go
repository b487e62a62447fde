package cli

import (
	"os/user"
	"strconv"

	"github.com/corvidlabs/fledge-go/events"
)

// withUserNames fills in the account name of each event's uid, as the
// system names it now.
func withUserNames(evs []events.Event) {
	names := map[int]string{}
	for i := range evs {
		a := &evs[i].Actor
		if a.User != "" || a.UID < 0 {
			continue
		}
		name, ok := names[a.UID]
		if !ok {
			if u, err := user.LookupId(strconv.Itoa(a.UID)); err == nil {
				name = u.Username
			}
			names[a.UID] = name
		}
		a.User = name
	}
}
