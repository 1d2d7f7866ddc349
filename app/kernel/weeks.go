package kernel

import (
	"time"

	"launchdir/ops"
)

// Weeks run Monday to Sunday in UTC; a week is named by its Monday.
const DateLayout = "2006-01-02"

// Monday returns the Monday (00:00 UTC) of t's week.
func Monday(t time.Time) time.Time {
	t = t.UTC()
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	offset := (int(d.Weekday()) + 6) % 7 // Monday = 0
	return d.AddDate(0, 0, -offset)
}

// WeekOf formats the Monday of t's week.
func WeekOf(t time.Time) string { return Monday(t).Format(DateLayout) }

// ResolveWeek turns this/next/last or a date into the Monday of that week.
func ResolveWeek(now time.Time, s string) (string, error) {
	switch s {
	case "this", "":
		return WeekOf(now), nil
	case "next":
		return WeekOf(Monday(now).AddDate(0, 0, 7)), nil
	case "last":
		return WeekOf(Monday(now).AddDate(0, 0, -7)), nil
	}
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		return "", ops.Invalid("week", "must be this, next, last or a date as YYYY-MM-DD")
	}
	return WeekOf(t), nil
}
