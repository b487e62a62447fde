package ociartifact

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
)

// Media types of a fledge plugin artifact.
const (
	// ArtifactType is the manifest's artifactType.
	ArtifactType = "application/vnd.fledge.plugin.v1"
	// LayerMediaType is the one layer: the plugin tree as a gzipped tar
	// of regular files, directories and symlinks inside the tree.
	LayerMediaType = "application/vnd.fledge.plugin.tree.v1.tar+gzip"
)

// Annotations on the manifest. The OCI standard keys carry what they are
// meant for; the tree hash has no standard key.
const (
	AnnotationName     = ocispec.AnnotationTitle    // the plugin's name
	AnnotationVersion  = ocispec.AnnotationVersion  // the manifest's version
	AnnotationSource   = ocispec.AnnotationSource   // the origin source it was fetched from
	AnnotationRevision = ocispec.AnnotationRevision // the origin's commit
	// AnnotationTreeHash is the content hash (package treehash) of the
	// tree in the layer.
	AnnotationTreeHash = "dev.fledge.plugin.tree-hash"
)

// Info is what an artifact says about itself.
type Info struct {
	Name, Version string
	// Source is the origin the tree was fetched from (a git URL), and
	// Commit the origin's commit; both may be empty.
	Source, Commit string
	// TreeHash is the hash of the tree in the layer.
	TreeHash string
}

func (i Info) annotations() map[string]string {
	a := map[string]string{AnnotationName: i.Name, AnnotationVersion: i.Version, AnnotationTreeHash: i.TreeHash}
	if i.Source != "" {
		a[AnnotationSource] = i.Source
	}
	if i.Commit != "" {
		a[AnnotationRevision] = i.Commit
	}
	return a
}

func infoOf(a map[string]string) Info {
	return Info{Name: a[AnnotationName], Version: a[AnnotationVersion], Source: a[AnnotationSource],
		Commit: a[AnnotationRevision], TreeHash: a[AnnotationTreeHash]}
}

// tagRe is what a registry accepts as a tag (the distribution spec's
// grammar), compiled on first use.
var tagRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`) })

// Tag is version as a tag: the distribution spec allows no '+', which a
// semver version may hold, so it becomes '_' (as helm does).
func Tag(version string) (string, error) {
	t := strings.ReplaceAll(version, "+", "_")
	if !tagRe().MatchString(t) {
		return "", fmt.Errorf("version %q cannot be an OCI tag (letters, digits, '_', '.', '-'; at most 128)", version)
	}
	return t, nil
}

// Target is where artifacts are pushed: a registry repository
// (Remote.Repository) or an image layout. It is oras.Target, spelled out so
// that fledge does not link oras-go's root package, whose init compiles a
// regular expression every command would pay for.
type Target interface {
	content.Storage
	content.TagResolver
}

// Source is where artifacts are read from (oras.ReadOnlyTarget).
type Source interface {
	content.ReadOnlyStorage
	content.Resolver
}
