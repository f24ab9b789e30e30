"""Public API of the chobo rules.

    load("@chobo//rules:defs.bzl", "chobo_book", "chobo_sql", "chobo_client", "chobo_conformance_test", "chobo_doc")

See docs/bazel.md for how to use them.
"""

load("//rules/private:book.bzl", _chobo_book = "chobo_book")
load("//rules/private:client.bzl", _chobo_client = "chobo_client")
load("//rules/private:conformance.bzl", _chobo_conformance_test = "chobo_conformance_test")
load("//rules/private:doc.bzl", _chobo_doc = "chobo_doc")
load("//rules/private:providers.bzl", _BookInfo = "BookInfo", _ChoboGeneratedInfo = "ChoboGeneratedInfo")
load("//rules/private:sql.bzl", _chobo_sql = "chobo_sql")

chobo_book = _chobo_book
chobo_sql = _chobo_sql
chobo_client = _chobo_client
chobo_conformance_test = _chobo_conformance_test
chobo_doc = _chobo_doc
BookInfo = _BookInfo
ChoboGeneratedInfo = _ChoboGeneratedInfo
