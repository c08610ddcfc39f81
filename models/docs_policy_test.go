package models_test

import (
	"os"
	"strings"
	"testing"

	"github.com/positgan/positgan/datasets"
	"github.com/positgan/positgan/gan"
	"github.com/positgan/positgan/models"
	"github.com/positgan/positgan/nn"
	"github.com/positgan/positgan/policy"
	"gorgonia.org/gorgonia"
)

// The policy file docs/policies.md shows reads as a policy whose every
// glob matches a layer of the default CGAN, so a reader copying it
// quantizes what the comments say (issue 29 item 14).
func TestDocsPolicyExampleMatches(t *testing.T) {
	b, err := os.ReadFile("../docs/policies.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "```toml\n")
	if i < 0 {
		t.Fatal("docs/policies.md has no TOML example")
	}
	body := doc[i+len("```toml\n"):]
	body = body[:strings.Index(body, "```")]
	p, err := policy.Read(strings.NewReader(body))
	if err != nil {
		t.Fatalf("the example does not read: %v", err)
	}
	cfg, err := models.DefaultConfig(models.CGAN, datasets.Shape{C: 1, H: 28, W: 28}, 10)
	if err != nil {
		t.Fatal(err)
	}
	m, err := models.New(cfg.WithPolicy(p))
	if err != nil {
		t.Fatal(err)
	}
	s := nn.NewScope(gorgonia.NewGraph(), p.For, 1)
	gs, err := m.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	nets := &gan.Nets{Model: m, Groups: gs}
	if globs := p.Unmatched(nets.Names()); len(globs) > 0 {
		t.Errorf("the example's globs %q match no layer of the CGAN (layers %v)", globs, nets.Names())
	}
}
