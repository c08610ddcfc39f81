package policy

import "path"

// Unmatched returns the layer globs of p that match none of the given
// layer names, in the order they were added: a glob that matches nothing
// is most likely a typo or a pattern written for another model, and
// silently changes nothing.
func (p *Policy) Unmatched(layers []string) []string {
	if p == nil {
		return nil
	}
	var none []string
	for _, o := range p.overrides {
		if o.match == "" {
			continue
		}
		hit := false
		for _, l := range layers {
			if ok, _ := path.Match(o.match, l); ok {
				hit = true
				break
			}
		}
		if !hit {
			none = append(none, o.match)
		}
	}
	return none
}
