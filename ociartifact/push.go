package ociartifact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"

	"github.com/corvidlabs/fledge-go/treehash"
)

// Push packs the tree at dir into an artifact described by info, pushes
// it to dst and tags it with each of tags. info.TreeHash is set from the
// tree. One tree with one info always makes the same manifest, so pushing
// it again changes nothing.
func Push(ctx context.Context, dst Target, dir string, info Info, tags []string, l Limits) (ocispec.Descriptor, error) {
	d, err := push(ctx, dst, dir, info, tags, l)
	return d, classify(err)
}

func push(ctx context.Context, dst Target, dir string, info Info, tags []string, l Limits) (ocispec.Descriptor, error) {
	tree, err := treehash.Hash(dir, treehash.Options{})
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	info.TreeHash = tree.Hash
	layer, err := pack(dir, l)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	ldesc := content.NewDescriptorFromBytes(LayerMediaType, layer)
	// A title makes oras pull (which skips untitled layers) save the tree
	// as NAME.tar.gz.
	ldesc.Annotations = map[string]string{ocispec.AnnotationTitle: info.Name + ".tar.gz"}
	if err := pushBlob(ctx, dst, ldesc, layer); err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("push layer: %w", err)
	}
	empty := ocispec.DescriptorEmptyJSON
	if err := pushBlob(ctx, dst, empty, empty.Data); err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("push config: %w", err)
	}
	empty.Data = nil
	m := ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
		ArtifactType: ArtifactType, Config: empty, Layers: []ocispec.Descriptor{ldesc}, Annotations: info.annotations(),
	}
	data, err := json.Marshal(m)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	mdesc := content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, data)
	mdesc.ArtifactType, mdesc.Annotations = ArtifactType, m.Annotations
	if err := pushBlob(ctx, dst, mdesc, data); err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("push manifest: %w", err)
	}
	for _, t := range tags {
		if err := dst.Tag(ctx, mdesc, t); err != nil {
			return ocispec.Descriptor{}, fmt.Errorf("tag %s: %w", t, err)
		}
	}
	return mdesc, nil
}

func pushBlob(ctx context.Context, dst Target, desc ocispec.Descriptor, data []byte) error {
	if ok, err := dst.Exists(ctx, desc); err == nil && ok {
		return nil
	}
	err := dst.Push(ctx, desc, bytes.NewReader(data))
	if errors.Is(err, errdef.ErrAlreadyExists) {
		return nil
	}
	return err
}
