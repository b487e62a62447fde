package ociartifact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"
)

// ErrNotPlugin is wrapped when a reference names something other than a
// fledge plugin artifact.
var ErrNotPlugin = errors.New("not a fledge plugin artifact")

// ErrNotFound is wrapped when a tag or digest names nothing.
var ErrNotFound = errors.New("not found")

// ErrCredentials is wrapped when the registry wants credentials it was
// not given or refused those it was.
var ErrCredentials = errors.New("the registry wants other credentials")

// classify marks err with ErrCredentials or ErrNotFound when the registry
// said so.
func classify(err error) error {
	var resp *errcode.ErrorResponse
	switch {
	case err == nil:
		return nil
	case errors.Is(err, auth.ErrBasicCredentialNotFound),
		errors.As(err, &resp) && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden):
		return fmt.Errorf("%w: %w", ErrCredentials, err)
	case errors.Is(err, errdef.ErrNotFound), errors.As(err, &resp) && resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}

// Pulled is an artifact written to a directory.
type Pulled struct {
	// Digest is the manifest's digest ("sha256:…").
	Digest string
	Info   Info
}

// Pull resolves reference (a tag or a digest) in src and writes the
// artifact's tree into dir, which must not exist. The manifest, the layer
// and the tree are each bounded by l before they are read, and the
// manifest and layer are checked against their digests: a layer that does
// not match is refused (dir is then the caller's to remove).
func Pull(ctx context.Context, src Source, reference, dir string, l Limits) (*Pulled, error) {
	p, err := pull(ctx, src, reference, dir, l)
	return p, classify(err)
}

func pull(ctx context.Context, src Source, reference, dir string, l Limits) (*Pulled, error) {
	desc, err := src.Resolve(ctx, reference)
	if err != nil {
		return nil, err
	}
	m, err := readManifest(ctx, src, desc, l)
	if err != nil {
		return nil, err
	}
	layer := m.Layers[0]
	if layer.Size < 0 || layer.Size > l.layerBytes() {
		return nil, tooLarge("download", l)
	}
	rc, err := src.Fetch(ctx, layer)
	if err != nil {
		return nil, fmt.Errorf("fetch layer %s: %w", layer.Digest, err)
	}
	defer rc.Close()
	vr := content.NewVerifyReader(rc, layer)
	if err := unpack(vr, dir, l); err != nil {
		if verr := drainVerify(vr); verr != nil {
			return nil, verr // a corrupt layer is the cause, not what it unpacked to
		}
		return nil, err
	}
	if err := drainVerify(vr); err != nil {
		return nil, err
	}
	return &Pulled{Digest: desc.Digest.String(), Info: infoOf(m.Annotations)}, nil
}

// drainVerify reads what is left of the layer (no more than it declared)
// and checks its digest.
func drainVerify(vr *content.VerifyReader) error {
	if _, err := io.Copy(io.Discard, vr); err != nil {
		if errors.Is(err, ErrIdle) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("fetch layer: %w", err)
		}
		return fmt.Errorf("%w: the layer does not match its digest or size: %v", ErrBadLayer, err)
	}
	if err := vr.Verify(); err != nil {
		return fmt.Errorf("%w: the layer does not match its digest or size: %v", ErrBadLayer, err)
	}
	return nil
}

// Resolve is the digest and the self-description of the artifact
// reference names, without its tree.
func Resolve(ctx context.Context, src Source, reference string, l Limits) (*Pulled, error) {
	desc, err := src.Resolve(ctx, reference)
	if err != nil {
		return nil, classify(err)
	}
	m, err := readManifest(ctx, src, desc, l)
	if err != nil {
		return nil, classify(err)
	}
	return &Pulled{Digest: desc.Digest.String(), Info: infoOf(m.Annotations)}, nil
}

func readManifest(ctx context.Context, src Source, desc ocispec.Descriptor, l Limits) (*ocispec.Manifest, error) {
	if desc.MediaType != ocispec.MediaTypeImageManifest {
		return nil, fmt.Errorf("%s is a %s: %w", desc.Digest, desc.MediaType, ErrNotPlugin)
	}
	if desc.Size < 0 || desc.Size > l.manifest() {
		return nil, fmt.Errorf("%w: its manifest is %d bytes, more than the %d fledge reads", ErrNotPlugin, desc.Size, l.manifest())
	}
	rc, err := src.Fetch(ctx, desc)
	if err != nil {
		return nil, fmt.Errorf("fetch manifest %s: %w", desc.Digest, err)
	}
	defer rc.Close()
	data, err := content.ReadAll(rc, desc)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", desc.Digest, err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", desc.Digest, err)
	}
	if m.ArtifactType != ArtifactType {
		return nil, fmt.Errorf("%s has artifact type %q, not %q: %w", desc.Digest, m.ArtifactType, ArtifactType, ErrNotPlugin)
	}
	if len(m.Layers) != 1 || m.Layers[0].MediaType != LayerMediaType {
		return nil, fmt.Errorf("%s has %d layers; a plugin has one, of type %s: %w", desc.Digest, len(m.Layers), LayerMediaType, ErrNotPlugin)
	}
	return &m, nil
}

// Tags lists the tags of src.
func Tags(ctx context.Context, src Source) ([]string, error) {
	lister, ok := src.(interface {
		Tags(ctx context.Context, last string, fn func([]string) error) error
	})
	if !ok {
		return nil, fmt.Errorf("%T lists no tags", src)
	}
	var tags []string
	err := lister.Tags(ctx, "", func(t []string) error {
		if tags = append(tags, t...); len(tags) > 100_000 {
			return fmt.Errorf("more than 100000 tags")
		}
		return nil
	})
	return tags, classify(err)
}
