package policy

import "fmt"

// ItemConfinement is the Denial item of the [confinement] rules.
const ItemConfinement = "confinement"

// CheckConfined refuses to run a native plugin (or its hooks and build
// commands) whose grants the kernel does not enforce here, when a layer's
// [confinement] require is true. why says why they are not enforced (the
// kernel lacks Landlock, confinement was turned off); "" when they are.
func (s *Set) CheckConfined(why string) *Denial {
	if why == "" {
		return nil
	}
	for _, l := range s.Layers() {
		if r := l.confineRequire; r != nil && *r {
			return &Denial{Item: ItemConfinement, Rule: l.Rule("confinement", "require"), File: l.Where(),
				Reason: fmt.Sprintf("= true: native plugins run only where the kernel enforces their grants, and here it does not (%s)", why)}
		}
	}
	return nil
}

// CheckOff refuses turning kernel confinement off (by, such as
// "FLEDGE_CONFINE=off") when a layer's [confinement] allow_off is false;
// by "" turns nothing off.
func (s *Set) CheckOff(by string) *Denial {
	if by == "" {
		return nil
	}
	for _, l := range s.Layers() {
		if a := l.confineAllowOff; a != nil && !*a {
			return &Denial{Item: ItemConfinement, Rule: l.Rule("confinement", "allow_off"), File: l.Where(),
				Reason: fmt.Sprintf("= false: kernel confinement may not be turned off, and %s turns it off", by)}
		}
	}
	return nil
}
