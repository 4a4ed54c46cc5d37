"""The values keys a failed render names as missing, from Helm's and Go template's error shapes."""

from __future__ import annotations

from aftershock.render.schemas.missing_values import (
    Need,
    missing_values,
    piped_need,
    required_need,
    required_needs,
)


def test_go_templates_nil_pointer_names_the_expression_and_its_parent_map():
    error = (
        'app/templates/cm.yaml:6:72 executing "app/templates/cm.yaml" at <.Values.global.registry>: '
        "nil pointer evaluating interface {}.registry"
    )
    assert missing_values(error) == [Need((("global", "registry"),), nil_parent=True)]


def test_helm_4s_error_broken_over_lines_still_names_the_expression():
    error = (
        'app/templates/cm.yaml:6:19\n  executing "app/templates/cm.yaml" at <.Values.global.registry>:\n'
        "    nil pointer evaluating interface {}.registry"
    )
    assert missing_values(error) == [Need((("global", "registry"),), nil_parent=True)]


def test_an_index_of_a_missing_map_names_the_indexed_key():
    error = (
        'template: app/templates/cm.yaml:7:12: executing "app/templates/cm.yaml" at '
        '<index .Values._cluster "cluster-domain">: error calling index: index of untyped nil'
    )
    assert missing_values(error) == [Need((("_cluster", "cluster-domain"),), nil_parent=True)]


def test_a_subchart_templates_expression_is_under_the_subcharts_name():
    error = (
        'app/charts/redis/templates/x.yaml:3:4 executing "app/charts/redis/templates/x.yaml" at '
        "<.Values.auth.user>: nil pointer evaluating interface {}.user"
    )
    assert missing_values(error)[0].keys == (("redis", "auth", "user"),)


def test_a_required_message_names_values_paths_in_either_scope():
    error = (
        "execution error at (keppel/charts/redis/templates/metrics-deployment.yaml:37:20): "
        "missing value for .Values.global.registryAlternateRegion"
    )
    assert missing_values(error) == [Need((("global", "registryAlternateRegion"),), stated=True)]
    owner = (
        "execution error at (bridge-attach/charts/owner-info/templates/configmap.yaml:2:6): "
        ".Values.owner-info.helm-chart-url is missing or not a HTTP(S) URL"
    )
    assert missing_values(owner) == [
        Need(
            (
                ("owner-info", "owner-info", "helm-chart-url"),
                ("owner-info", "helm-chart-url"),
            ),
            stated=True,
        )
    ]


def test_a_fail_message_names_dotted_global_keys():
    error = (
        "execution error at (keppel/charts/postgresql/templates/deployment.yaml:31:14): "
        "global.linkerd_enabled plus global.linkerd_requested must be defined and the "
        "linkerd-support Helm chart must be added as chart dependency"
    )
    assert [n.keys for n in missing_values(error)] == [
        (("global", "linkerd_enabled"),),
        (("global", "linkerd_requested"),),
    ]


def test_file_names_and_addresses_are_no_keys():
    error = (
        "execution error at (c/templates/x.yaml:1:2): see https://example.org/docs.html "
        "and values.yaml/x"
    )
    assert missing_values(error) == []


def test_the_key_a_required_call_reads_comes_from_the_templates_text_at_the_position():
    source = (
        "data:\n"
        '  tls.crt: {{ required ".Values.auth.GRPClientCert missing" $.Values.auth.GRPCClientCert'
        " | b64enc }}\n"
    )
    error = (
        "execution error at (global/charts/thanos/templates/secret.yaml:2:14): "
        ".Values.auth.GRPClientCert missing"
    )
    # the message misspells the key; the template's argument is what it reads
    assert required_need(error, source) == Need(
        (("thanos", "auth", "GRPCClientCert"),), stated=True
    )
    assert required_need(error.replace(":2:14", ":1:1"), source) is None  # no call there
    assert required_need("template: no position", source) is None
    plain = '{{ required "set token" (.Values.token) }}'
    assert required_need("execution error at (app/templates/x.yaml:1:4): set token", plain) == Need(
        (("token",),), stated=True
    )


def test_every_required_call_of_the_failing_template_is_read_the_positioned_one_first():
    source = (
        'a: {{ required "a" .Values.auth.cert }}\n'
        'b: {{ required "b" .Values.auth.key }}\n'
        'c: {{ required "c" .Values.global.region }}\n'
    )
    error = "execution error at (web/charts/sso/templates/s.yaml:2:6): b"
    assert [n.keys for n in required_needs(error, source)] == [
        (("sso", "auth", "key"),),
        (("sso", "auth", "cert"),),
        (("global", "region"),),
    ]


def test_a_template_whose_output_is_not_yaml_is_named_and_its_reads_are_candidates():
    from aftershock.render.schemas.missing_values import invalid_yaml_template, read_needs

    error = (
        "rendered template is not valid YAML: mapping values are not allowed in this context "
        "(top/charts/rbac/templates/crb.yaml:9); fix the template so it renders valid YAML"
    )
    assert invalid_yaml_template(error) == "top/charts/rbac/templates/crb.yaml"
    assert invalid_yaml_template("execution error at (top/templates/a.yaml:1:2): x") is None
    source = "name: {{ .Values.org }}:{{ $.Values.global.cluster }}:{{ .Values.org }}\n"
    assert [n.keys for n in read_needs("top/charts/rbac/templates/crb.yaml", source)] == [
        (("rbac", "org"),),
        (("global", "cluster"),),
    ]
    assert not any(n.stated for n in read_needs("top/templates/crb.yaml", source))


PIPED = (
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\ndata:\n"
    "  user: {{ .Values.auth.user | b64enc }}\n"
    "  password: {{ .Values.auth.password | b64enc | quote }}\n"
)


def test_a_key_piped_into_a_function_wanting_a_text_is_read_from_the_templates_line():
    helm4 = (
        'pc/templates/secret.yaml:7:39\n  executing "pc/templates/secret.yaml" at <b64enc>:\n'
        "    invalid value; expected string"
    )
    helm3 = (
        'template: pc/charts/db/templates/secret.yaml:7:39: executing "pc/charts/db/templates/'
        'secret.yaml" at <b64enc>: invalid value; expected string'
    )
    assert piped_need(helm4, PIPED) == Need((("auth", "password"),), stated=True)
    assert piped_need(helm3, PIPED) == Need((("db", "auth", "password"),), stated=True)
    # the position holds no `.Values` pipe into it: nothing is guessed
    assert piped_need(helm4.replace(":7:39", ":4:3"), PIPED) is None
    assert piped_need(helm4.replace("b64enc>", "upper>"), PIPED) is None


def test_a_value_piped_into_required_is_the_key_it_reads():
    source = (
        "env:\n"
        '- value: {{ .Values.osAuthUrl | required ".Values.osAuthUrl missing" }}\n'
        '- value: {{ .Values.credentialId | required "set the credential id" }}\n'
        '- value: {{ required "the region" .Values.region }}\n'
    )
    error = "execution error at (exporter/templates/ds.yaml:3:37): set the credential id"
    assert required_need(error, source) == Need((("credentialId",),), stated=True)
    assert required_needs(error, source) == [
        Need((("credentialId",),), stated=True),
        Need((("osAuthUrl",),), stated=True),
        Need((("region",),), stated=True),
    ]
