package cli

import (
	"github.com/corvidlabs/fledge-go/events"
	"github.com/corvidlabs/fledge-go/grantlog"
)

// userActor is the user fledge runs as, as the event trail names who
// asked for a run.
func userActor() events.Actor {
	name, uid := grantlog.CurrentUser()
	return events.Actor{Kind: "user", User: name, UID: uid}
}
