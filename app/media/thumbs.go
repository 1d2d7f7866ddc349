package media

import (
	"context"
	"encoding/json"
	"strings"
)

// Thumb is a card's thumbnail: the listing's first screenshot, which is
// public on every listing (free ones show only that one).
type Thumb struct {
	Src, SrcSet   string
	Width, Height int // of Src, so the card keeps its place while it loads
}

// thumbVariant is the screenshot size a card shows; the next one up serves
// screens with two pixels to a point.
const thumbVariant = "480"

// CardThumbs finds the thumbnails of a page's listings (by id): two
// queries for the whole page whatever its length. Listings whose first
// image is not one of this site's screenshots have none.
func (a *Service) CardThumbs(ctx context.Context, ids []int64) (map[int64]Thumb, error) {
	out := map[int64]Thumb{}
	if len(ids) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(ids)
	own := a.ownPaths(ctx) // before the rows take a connection
	rows, err := a.DB.Prepared(a.DB.R).QueryContext(ctx, `SELECT m.listing_id, m.url FROM media m
		WHERE m.kind = 'image' AND m.listing_id IN (SELECT value FROM json_each(?))
		ORDER BY m.listing_id, m.position, m.id`, string(list))
	if err != nil {
		return nil, err
	}
	hashes := map[int64]string{}
	for rows.Next() {
		var id int64
		var u string
		if err := rows.Scan(&id, &u); err != nil {
			rows.Close()
			return nil, err
		}
		if _, seen := hashes[id]; seen {
			continue
		}
		hashes[id] = ""
		if p, ok := own(u); ok {
			hashes[id], _, _, _ = ParsePath(p)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return a.thumbSizes(ctx, hashes, out)
}

// thumbSizes reads the card variant's size of each listing's screenshot.
func (a *Service) thumbSizes(ctx context.Context, hashes map[int64]string, out map[int64]Thumb) (map[int64]Thumb, error) {
	var want []string
	for _, h := range hashes {
		if h != "" {
			want = append(want, h)
		}
	}
	if len(want) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(want)
	rows, err := a.DB.Prepared(a.DB.R).QueryContext(ctx, `SELECT hash, width, height FROM media_variants
		WHERE variant = ? AND hash IN (SELECT value FROM json_each(?))`, thumbVariant, string(list))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	size := map[string][2]int{}
	for rows.Next() {
		var h string
		var w, ht int
		if err := rows.Scan(&h, &w, &ht); err != nil {
			return nil, err
		}
		size[h] = [2]int{w, ht}
	}
	for id, h := range hashes {
		if sz, ok := size[h]; ok && h != "" {
			out[id] = Thumb{Src: Path(h, thumbVariant, "jpg"), Width: sz[0], Height: sz[1],
				SrcSet: strings.Join([]string{Path(h, thumbVariant, "jpg") + " 1x", Path(h, "960", "jpg") + " 2x"}, ", ")}
		}
	}
	return out, rows.Err()
}
