package grantlog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/corvidlabs/fledge-go/manifest"
)

// What a record is about.
const (
	ActionInstall = "install"
	ActionUpdate  = "update"
	ActionSync    = "sync"
	ActionGrant   = "grant"
	ActionRevoke  = "revoke"
	ActionRemove  = "remove"
	// ActionUnconfine and ActionConfine: kernel confinement was turned
	// off for the plugin (fledge plugins unconfine), or back on.
	ActionUnconfine = "unconfine"
	ActionConfine   = "confine"
	// ActionDisable and ActionEnable: the plugin was disabled (fledge
	// plugins disable: no entry point of it is reachable), or enabled.
	ActionDisable = "disable"
	ActionEnable  = "enable"
	// ActionPolicyDenial: the admin policy denied, at run time, something
	// plugins.toml grants.
	ActionPolicyDenial = "policy_denial"
)

// How consent was given for an item a record grants (or, for policy, how
// an item came to be removed).
const (
	ConsentInteractive = "interactive" // chosen on the approval form
	ConsentYes         = "yes"         // approved by --yes
	ConsentGrant       = "grant"       // named: --grant, or fledge plugins grant <name> CAP
	ConsentSync        = "sync"        // proposed by a synced plugins.toml and approved
	ConsentUpdate      = "update"      // approved before; an update carried it over
	ConsentPolicy      = "policy"      // taken away (or refused) by the admin policy
	// ConsentRequired: pre-approved by the admin policy's [[required]]
	// entry (fledge plugins sync --policy), not by the user.
	ConsentRequired = "policy_required"
)

// Record is one line of the log. The fields up to Note describe the change;
// Seq, Time, User, UID, StateBefore, LogBreak, Prev and Hash are filled by
// Append.
type Record struct {
	Seq  int64     `json:"seq"`
	Time time.Time `json:"time"`
	// User is the account that made the change, UID its numeric id (-1
	// where the system has none, as on Windows).
	User string `json:"user"`
	UID  int    `json:"uid"`

	Action  string `json:"action"`
	Plugin  string `json:"plugin"`
	Version string `json:"version"`
	Source  string `json:"source"`
	URL     string `json:"url"`
	Commit  string `json:"commit"`
	// TreeHash is the installed tree's content hash after the change.
	TreeHash string `json:"tree_hash"`
	Tier     string `json:"tier"`
	// Granted and Removed list the items (capability names, "hooks") this
	// change granted and took away.
	Granted []string `json:"granted"`
	Removed []string `json:"removed"`
	// Consent says, for each item in Granted (and for items the policy
	// removed), how it came to be: one of the Consent constants.
	Consent map[string]string `json:"consent"`
	// Capabilities and Hooks are what the plugin is granted after the
	// change (hooks: name → the exact command approved).
	Capabilities manifest.Capabilities `json:"capabilities"`
	Hooks        map[string]string     `json:"hooks"`
	// Policy lists the admin policy rules that refused or narrowed
	// something in this change.
	Policy []PolicyNote `json:"policy"`
	Note   string       `json:"note"`
	// Provenance, when set, says who signed the revision this change
	// installed and who signed the one before, when that changed (or was
	// first recorded), and who accepted a lower level or another signer.
	Provenance *Provenance `json:"provenance,omitempty"`

	// StateBefore is the SHA-256 of the plugins.toml this change started
	// from ("" when there was none).
	StateBefore string `json:"state_before"`
	// LogBreak, when set, says what Append found wrong with the log
	// before this record: evidence that stays in the chain.
	LogBreak string `json:"log_break"`
	Prev     string `json:"prev"`
	Hash     string `json:"hash"`
}

// Provenance is a change of who signed a plugin's installed revision.
type Provenance struct {
	// From is what was recorded before (nil: nothing was), To what is now.
	From *Signer `json:"from"`
	To   *Signer `json:"to"`
	// Override, when set, says how a lower level or another signer than
	// From was accepted, and why: "--accept-provenance: <reason>" or
	// "re-approved on a terminal". The record's user is who accepted it.
	Override string `json:"override,omitempty"`
}

// Signer is one side of a Provenance change (package lockfile's
// Provenance, as the log keeps it).
type Signer struct {
	Level     string `json:"level"`
	Signer    string `json:"signer"`
	Principal string `json:"principal"`
	VouchedBy string `json:"vouched_by"`
}

// PolicyNote is one rule that refused or narrowed an item.
type PolicyNote struct {
	Item   string `json:"item"`
	Rule   string `json:"rule"`
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// MaxRecord bounds one record's encoding.
const MaxRecord = 1 << 20

// normalise makes empty collections encode as [] and {}, so the canonical
// form of a record does not depend on how its author built it.
func (r *Record) normalise() {
	if r.Granted == nil {
		r.Granted = []string{}
	}
	if r.Removed == nil {
		r.Removed = []string{}
	}
	if r.Consent == nil {
		r.Consent = map[string]string{}
	}
	if r.Hooks == nil {
		r.Hooks = map[string]string{}
	}
	if r.Policy == nil {
		r.Policy = []PolicyNote{}
	}
	r.Time = r.Time.UTC()
}

// encode is the canonical encoding: encoding/json's, without HTML escaping
// and without the trailing newline.
func encode(r *Record) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// hashOf is SHA-256 over the record's canonical encoding with Hash empty
// (Prev, inside it, chains it to the record before).
func hashOf(r Record) (string, error) {
	r.Hash = ""
	data, err := encode(&r)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// Digest is the SHA-256 of data as records spell it, or "" for no data.
func Digest(data []byte) string {
	if data == nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// decode reads one line strictly: unknown fields and trailing data are
// errors.
func decode(line []byte) (Record, error) {
	var r Record
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, err
	}
	if dec.More() {
		return r, errors.New("data after the record")
	}
	if r.Seq < 1 {
		return r, fmt.Errorf("sequence number %d", r.Seq)
	}
	return r, nil
}
