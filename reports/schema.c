/*
 * schema.c - the JSON Schema (draft 2020-12) of the spec language, written from the tables
 * the parser and the builders check: the top-level, law, pair, neighbours and universe keys
 * (specs/spec.c), the relations, the kinds and each kind's mechanism keys (the kind table,
 * catalogue/catalogue.c) and the claim keys with what each holds (the claim table,
 * verdict/claims.c). One source of truth: a key added to a table is in the schema. Editors
 * that read YAML against a JSON Schema (YAML is a superset of JSON) complete and check specs
 * with it; doc/gaussaudit-spec.schema.json is this output. The schema checks structure and
 * the claim's ranges; the numbers' other rules (a matrix's shape, positive definiteness) are
 * the parser's.
 */
#include "reports/report.h"
#include "catalogue/catalogue.h"

#include <string.h>

/* {"type": "number", <bound>: lo} */
static void number(ga_jw *j, const char *key, const char *bound, double lo, double below)
{
    ga_jw_obj(j, key);
    ga_jw_str(j, "type", "number");
    if (bound)
        ga_jw_num(j, bound, lo);
    if (below > 0)
        ga_jw_num(j, "exclusiveMaximum", below);
    ga_jw_obj_end(j);
}

static void ref(ga_jw *j, const char *key, const char *def)
{
    char b[96];
    snprintf(b, sizeof b, "#/$defs/%s", def);
    ga_jw_obj(j, key);
    ga_jw_str(j, "$ref", b);
    ga_jw_obj_end(j);
}

static void strings(ga_jw *j, const char *key, const char *const *v)
{
    ga_jw_arr(j, key);
    for (; *v; v++)
        ga_jw_str(j, NULL, *v);
    ga_jw_arr_end(j);
}

/* {"type": "object", "additionalProperties": false, "properties": {k: {}...}} opened: the
 * caller adds its own and closes properties and the object */
static void object_of(ga_jw *j, const char *key, const char *const *keys)
{
    ga_jw_obj(j, key);
    ga_jw_str(j, "type", "object");
    ga_jw_bool(j, "additionalProperties", 0);
    ga_jw_obj(j, "properties");
    for (; keys && *keys; keys++) {
        ga_jw_obj(j, *keys);
        ga_jw_obj_end(j);
    }
}

static void relations(ga_jw *j, const char *key)
{
    ga_jw_obj(j, key);
    ga_jw_arr(j, "enum");
    for (size_t i = 0; ga_spec_relation_at(i); i++)
        ga_jw_str(j, NULL, ga_spec_relation_at(i));
    ga_jw_arr_end(j);
    ga_jw_obj_end(j);
}

/* the mechanism: its kind, then per kind the keys it takes (if kind is K then only K's keys) */
static void mechanism_def(ga_jw *j)
{
    ga_jw_obj(j, "mechanism");
    ga_jw_str(j, "type", "object");
    ga_jw_arr(j, "required");
    ga_jw_str(j, NULL, "kind");
    ga_jw_arr_end(j);
    ga_jw_obj(j, "properties");
    ga_jw_obj(j, "kind");
    ga_jw_arr(j, "enum");
    for (size_t i = 0; ga_mech_kind_at(i); i++)
        ga_jw_str(j, NULL, ga_mech_kind_at(i));
    ga_jw_arr_end(j);
    ga_jw_obj_end(j);
    ga_jw_obj(j, "repeat");
    ga_jw_str(j, "type", "integer");
    ga_jw_num(j, "minimum", 1);
    ga_jw_num(j, "maximum", 1e9);
    ga_jw_obj_end(j);
    ga_jw_obj_end(j); /* properties */
    ga_jw_arr(j, "allOf");
    for (size_t i = 0; ga_mech_kind_at(i); i++) {
        ga_jw_obj(j, NULL);
        ga_jw_obj(j, "if");
        ga_jw_obj(j, "properties");
        ga_jw_obj(j, "kind");
        ga_jw_str(j, "const", ga_mech_kind_at(i));
        ga_jw_obj_end(j);
        ga_jw_obj_end(j);
        ga_jw_obj_end(j); /* if */
        object_of(j, "then", NULL);
        for (const char *const *k = ga_mech_kind_keys(i); *k; k++) {
            if (!strcmp(*k, "parts")) {
                ga_jw_obj(j, "parts");
                ga_jw_str(j, "type", "array");
                ga_jw_num(j, "minItems", 1);
                ref(j, "items", "mechanism");
                ga_jw_obj_end(j);
            } else {
                ga_jw_obj(j, *k);
                ga_jw_obj_end(j);
            }
        }
        for (const char *const *k = ga_spec_common_mech_keys; *k; k++) {
            ga_jw_obj(j, *k);
            ga_jw_obj_end(j);
        }
        ga_jw_obj_end(j); /* properties */
        ga_jw_obj_end(j); /* then */
        ga_jw_obj_end(j);
    }
    ga_jw_arr_end(j);
    ga_jw_obj_end(j);
}

/* the claim: every key of every claim type, with what it holds */
static void claim_def(ga_jw *j)
{
    ga_jw_obj(j, "claim");
    ga_jw_str(j, "type", "object");
    ga_jw_bool(j, "additionalProperties", 0);
    ga_jw_num(j, "minProperties", 1);
    ga_jw_obj(j, "properties");
    for (size_t i = 0; ga_claim_row_at(i); i++) {
        const ga_claim_row *r = ga_claim_row_at(i);
        for (size_t k = 0; k < GA_CLAIM_KEYS && r->keys[k]; k++) {
            switch (r->shape[k]) {
            case GA_SHAPE_NONNEG:
                number(j, r->keys[k], "minimum", 0, 0);
                break;
            case GA_SHAPE_PROB:
                number(j, r->keys[k], "minimum", 0, 1);
                break;
            case GA_SHAPE_POSITIVE:
                number(j, r->keys[k], "exclusiveMinimum", 0, 0);
                break;
            case GA_SHAPE_POINTS:
                ref(j, r->keys[k], "points");
                break;
            case GA_SHAPE_DIRECTION:
                ga_jw_obj(j, r->keys[k]);
                ga_jw_arr(j, "enum");
                ga_jw_str(j, NULL, "xy");
                ga_jw_str(j, NULL, "yx");
                ga_jw_arr_end(j);
                ga_jw_obj_end(j);
                break;
            case GA_SHAPE_NAME:
                ga_jw_obj(j, r->keys[k]);
                ga_jw_str(j, "type", "string");
                ga_jw_num(j, "minLength", 1);
                ga_jw_obj_end(j);
                break;
            default:
                ga_jw_obj(j, r->keys[k]);
                ga_jw_obj_end(j);
            }
        }
    }
    ga_jw_obj_end(j); /* properties */
    /* epsilon and delta go together */
    ga_jw_obj(j, "dependentRequired");
    ga_jw_arr(j, "epsilon");
    ga_jw_str(j, NULL, "delta");
    ga_jw_arr_end(j);
    ga_jw_arr(j, "delta");
    ga_jw_str(j, NULL, "epsilon");
    ga_jw_arr_end(j);
    ga_jw_obj_end(j);
    ga_jw_obj_end(j);
}

static void defs(ga_jw *j)
{
    ga_jw_obj(j, "$defs");
    mechanism_def(j);
    claim_def(j);
    ga_jw_obj(j, "points");
    ga_jw_str(j, "type", "array");
    ga_jw_num(j, "minItems", 1);
    ga_jw_obj(j, "items");
    ga_jw_str(j, "type", "array");
    ga_jw_num(j, "minItems", 2);
    ga_jw_num(j, "maxItems", 2);
    ga_jw_obj(j, "items");
    ga_jw_str(j, "type", "number");
    ga_jw_obj_end(j);
    ga_jw_obj_end(j);
    ga_jw_obj_end(j);
    object_of(j, "law", ga_spec_law_keys);
    ga_jw_obj_end(j);
    strings(j, "required", ga_spec_law_keys);
    ga_jw_obj_end(j);
    object_of(j, "pair", ga_spec_pair_keys);
    ref(j, "x", "law");
    ref(j, "y", "law");
    ga_jw_obj(j, "name");
    ga_jw_str(j, "type", "string");
    ga_jw_obj_end(j);
    ga_jw_obj_end(j);
    ga_jw_arr(j, "required");
    ga_jw_str(j, NULL, "x");
    ga_jw_str(j, NULL, "y");
    ga_jw_arr_end(j);
    ga_jw_obj_end(j);
    ga_jw_obj_end(j); /* $defs */
}

/* what the top-level key k holds */
static void top_key(ga_jw *j, const char *k)
{
    if (!strcmp(k, "gaussaudit")) {
        ga_jw_obj(j, k);
        ga_jw_num(j, "const", 1);
        ga_jw_obj_end(j);
    } else if (!strcmp(k, "name") || !strcmp(k, "description") || !strcmp(k, "source")) {
        ga_jw_obj(j, k);
        ga_jw_str(j, "type", "string");
        ga_jw_obj_end(j);
    } else if (!strcmp(k, "mechanism") || !strcmp(k, "claim")) {
        ref(j, k, k);
    } else if (!strcmp(k, "pairs")) {
        ga_jw_obj(j, k);
        ga_jw_str(j, "type", "array");
        ga_jw_num(j, "minItems", 1);
        ref(j, "items", "pair");
        ga_jw_obj_end(j);
    } else if (!strcmp(k, "neighbours")) {
        ga_jw_obj(j, k);
        ga_jw_arr(j, "oneOf");
        relations(j, NULL);
        object_of(j, NULL, ga_spec_neighbour_keys);
        relations(j, "relation");
        ga_jw_obj_end(j); /* properties */
        ga_jw_arr(j, "required");
        ga_jw_str(j, NULL, "relation");
        ga_jw_arr_end(j);
        ga_jw_obj_end(j);
        ga_jw_arr_end(j);
        ga_jw_obj_end(j);
    } else if (!strcmp(k, "universe")) {
        object_of(j, k, NULL);
        number(j, "row_norm_bound", "exclusiveMinimum", 0, 0);
        number(j, "label_bound", "exclusiveMinimum", 0, 0);
        number(j, "max_rows", "minimum", 1, 0);
        ga_jw_obj_end(j); /* properties */
        ga_jw_num(j, "minProperties", 1);
        ga_jw_obj_end(j);
    } else {
        ga_jw_obj(j, k); /* (dataset, relative: their rules are the parser's) */
        ga_jw_obj_end(j);
    }
}

int ga_spec_schema_write(FILE *out)
{
    ga_jw j;
    ga_jw_init(&j, out);
    ga_jw_obj(&j, NULL);
    ga_jw_str(&j, "$schema", "https://json-schema.org/draft/2020-12/schema");
    ga_jw_str(&j, "title", "gaussaudit spec");
    ga_jw_str(&j, "description", "The spec language of gaussaudit (doc/spec.md), version 1, "
              "written by 'gaussaudit schema' from the tables the parser checks.");
    ga_jw_str(&j, "type", "object");
    ga_jw_bool(&j, "additionalProperties", 0);
    ga_jw_arr(&j, "required");
    ga_jw_str(&j, NULL, "gaussaudit");
    ga_jw_str(&j, NULL, "mechanism");
    ga_jw_arr_end(&j);
    ga_jw_obj(&j, "properties");
    for (const char *const *k = ga_spec_top_keys; *k; k++)
        top_key(&j, *k);
    ga_jw_obj_end(&j);
    /* kind gaussian_pair takes its laws from pairs: */
    ga_jw_obj(&j, "if");
    ga_jw_obj(&j, "properties");
    ga_jw_obj(&j, "mechanism");
    ga_jw_obj(&j, "properties");
    ga_jw_obj(&j, "kind");
    ga_jw_str(&j, "const", "gaussian_pair");
    ga_jw_obj_end(&j);
    ga_jw_obj_end(&j);
    ga_jw_obj_end(&j);
    ga_jw_obj_end(&j);
    ga_jw_obj_end(&j); /* if */
    ga_jw_obj(&j, "then");
    ga_jw_arr(&j, "required");
    ga_jw_str(&j, NULL, "pairs");
    ga_jw_arr_end(&j);
    ga_jw_obj_end(&j);
    defs(&j);
    ga_jw_obj_end(&j);
    return ferror(out) ? GA_EIO : GA_OK;
}
