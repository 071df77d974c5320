from xtalk.spec.diff import describe_changes


def test_changes_are_dotted_paths_with_values_and_the_rest_counted():
    old = {"name": "t", "run": {"duration_s": 5}, "stressors": [{"bench": "membw"}], "matrix": {"placement": ["solo"]}}
    new = {"name": "t", "run": {"duration_s": 10, "grace_s": 3}, "stressors": [{"bench": "memcpy"}],
           "matrix": {"placement": ["solo", "same-core"]}, "timeline": []}
    assert describe_changes(old, new, shown_at_most=5) == (
        'run.duration_s: 5 -> 10, run.grace_s added, stressors[0].bench: "membw" -> "memcpy", matrix.placement, '
        "timeline added")
    assert describe_changes(old, new, shown_at_most=2).endswith("run.grace_s added and 3 more")
    assert describe_changes({"run": {"duration_s": 5}}, {}) == "run removed"
    assert describe_changes(old, old) == ""
