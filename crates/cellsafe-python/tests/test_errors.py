"""Each exception class is raised by a case that causes it, with the CLI's message."""

from __future__ import annotations

import pyarrow as pa
import pytest

import cellsafe as cs

TABLE = pa.table(
    {
        "sex": ["F", "M", "F", "M", "M", "F"],
        "age": pa.array([30, 31, 32, 45, 90, 33], pa.int64()),
        "diag": ["flu", "cold", "flu", "none", "x", "x"],
        "wave": ["w1", "w2", "w1", "w2", "w1", "w2"],
    }
)
QIS = {"sex": cs.hierarchy.suppress(), "age": cs.hierarchy.intervals([10, 20])}


def test_the_classes_form_a_hierarchy():
    for cls in (cs.ConfigError, cs.DataError, cs.NothingAcceptable, cs.AuditFailed):
        assert issubclass(cls, cs.Error)
        assert cls.__module__ == "cellsafe"
    assert issubclass(cs.Error, Exception)


def test_a_bad_parameter_is_a_config_error_naming_the_key():
    with pytest.raises(cs.ConfigError, match=r"privacy"):
        cs.anonymize(TABLE, quasi_identifiers=QIS, models=[cs.KAnonymity(0)])
    with pytest.raises(cs.ConfigError, match=r"suppression_limit"):
        cs.anonymize(TABLE, quasi_identifiers=QIS, models=[cs.KAnonymity(2)], suppression_limit=2)
    with pytest.raises(cs.ConfigError, match=r"nosuch"):
        cs.anonymize(TABLE, quasi_identifiers={"nosuch": cs.hierarchy.mask()}, models=[cs.KAnonymity(2)])


def test_data_that_does_not_fit_is_a_data_error_naming_the_file(tmp_path):
    missing = tmp_path / "missing.csv"
    with pytest.raises(cs.DataError, match="missing.csv"):
        cs.anonymize(TABLE, quasi_identifiers={"sex": missing}, models=[cs.KAnonymity(2)])
    partial = tmp_path / "sex.csv"
    partial.write_text("F;*\n")  # M is not covered
    with pytest.raises(cs.DataError, match="sex"):
        cs.anonymize(
            TABLE,
            quasi_identifiers={"sex": partial},
            models=[cs.KAnonymity(2)],
            hierarchy_delimiter=";",
        )


def test_no_acceptable_transformation_raises_nothing_acceptable():
    with pytest.raises(cs.NothingAcceptable):
        cs.anonymize(TABLE, quasi_identifiers=QIS, models=[cs.KAnonymity(40)])


def test_a_release_the_audit_refuses_raises_audit_failed():
    # a public column known to the recipient splits the classes it varies in
    with pytest.raises(cs.AuditFailed, match="public columns"):
        cs.anonymize(
            TABLE,
            quasi_identifiers=QIS,
            sensitive=["diag"],
            models=[cs.KAnonymity(2)],
            suppression_limit=0.5,
            seed=4,
            attributes={"wave": {"role": "insensitive", "public": True}},
        )


def test_data_that_is_not_arrow_is_a_type_error():
    with pytest.raises(TypeError, match="__arrow_c_stream__"):
        cs.anonymize([{"sex": "F"}], quasi_identifiers=QIS, models=[cs.KAnonymity(2)])


def test_a_column_given_two_roles_is_refused():
    # a regression test (found in review): the later role silently won, releasing a
    # quasi-identifier as it is
    with pytest.raises(cs.ConfigError, match="two roles"):
        cs.anonymize(TABLE, quasi_identifiers=QIS, insensitive=["age"], models=[cs.KAnonymity(2)])
    with pytest.raises(cs.ConfigError, match="two roles"):
        cs.anonymize(TABLE, quasi_identifiers=QIS, sensitive=["sex"], models=[cs.KAnonymity(2)])


def test_what_run_cannot_keep_in_memory_is_refused(tmp_path):
    # regression tests (found in review): a database output was written, and a streaming
    # job returned a report without its release
    data = tmp_path / "t.csv"
    import pyarrow.csv as pacsv

    pacsv.write_csv(TABLE, data)
    base = cs.job(quasi_identifiers=QIS, sensitive=["diag"], insensitive=["wave"],
                  models=[cs.KAnonymity(2)], suppression_limit=0.5)
    db = tmp_path / "out.db"
    for extra, key in (
        ({"output": {"url": f"sqlite://{db}", "table": "rel"}}, "output.url"),
        ({"engine": {"kind": "streaming"}}, "engine.kind"),
    ):
        job = cs.Job({**base.keys, **extra})
        path = tmp_path / "job.toml"
        path.write_text(job.to_toml(path=str(data)))
        with pytest.raises(cs.ConfigError, match=key):
            cs.run(path)
    assert not db.exists()
    with pytest.raises(cs.ConfigError, match="output.url"):
        cs.anonymize(TABLE, quasi_identifiers=QIS, models=[cs.KAnonymity(2)],
                     output={"url": f"sqlite://{db}", "table": "g"})
    assert not db.exists()


def test_the_reports_warnings_are_python_warnings():
    with pytest.warns(cs.CellsafeWarning, match="released as they are"):
        cs.anonymize(TABLE, quasi_identifiers=QIS, models=[cs.KAnonymity(2)], suppression_limit=0.5)
