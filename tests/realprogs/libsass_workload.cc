// libsass workload for gmonlens's real-program tier (C++): a generated stylesheet (variables, maps,
// mixins with content blocks, nesting, placeholder and class @extend, @function with @if/@while,
// @each/@for loops, colour, string, list and selector functions, unit math), compiled through the
// C API in every output style, with a custom C function, a custom importer and a source map.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "sass.h"

static std::string stylesheet(unsigned blocks) {
  std::string s =
      "@import \"theme\";\n"
      "$sizes: (small: 4px, medium: 8px, large: 16px, huge: 2.5em);\n"
      "$names: alpha beta gamma delta epsilon zeta eta theta;\n"
      "@function scale($n, $factor: 1.25) {\n"
      "  $r: 1;\n"
      "  @for $i from 1 through $n { $r: $r * $factor; }\n"
      "  @return $r;\n"
      "}\n"
      "@function fib($n) { @if $n < 2 { @return $n; } @return fib($n - 1) + fib($n - 2); }\n"
      "@function pick($map, $key, $fallback: 0) {\n"
      "  @if map-has-key($map, $key) { @return map-get($map, $key); }\n"
      "  @return $fallback;\n"
      "}\n"
      "@function tone($c, $i) {\n"
      "  $k: $i % 6;\n"
      "  @while $k > 0 { $c: mix($c, complement($c), 15%); $k: $k - 1; }\n"
      "  @return adjust-hue(saturate($c, 5%), $i * 7deg);\n"
      "}\n"
      "%card { border: 1px solid $theme-border; border-radius: 3px; padding: pick($sizes, medium); }\n"
      "%text { font: #{$theme-font-size}/1.4 $theme-font; letter-spacing: 0.01em; }\n"
      "@mixin bp($w) { @media screen and (min-width: $w) { @content; } }\n"
      "@mixin box($pad, $color: $theme-primary, $args...) {\n"
      "  padding: $pad ($pad * 2) ($pad / 2);\n"
      "  background: rgba($color, 0.9);\n"
      "  color: if(lightness($color) > 50%, #111, #eee);\n"
      "  @if length($args) > 0 { box-shadow: $args; }\n"
      "  &:hover { background: darken($color, 10%); }\n"
      "  & + & { margin-left: $pad; }\n"
      "}\n";
  for (unsigned i = 0; i < blocks; i++) {
    std::string n = std::to_string(i);
    s += ".c" + n + " {\n"
         "  @extend %card;\n"
         "  $base: tone($theme-primary, " + n + ");\n"
         "  width: percentage(" + std::to_string(i % 12 + 1) + " / 12);\n"
         "  height: scale(" + std::to_string(i % 9) + ") * 1rem + fib(" + std::to_string(i % 11) + ") * 0.1rem;\n"
         "  z-index: double(" + n + ");\n"
         "  @include box(pick($sizes, nth(map-keys($sizes), " + std::to_string(i % 4 + 1) +
         ")), $base, 0 1px 2px rgba(0,0,0,.2), inset 0 0 1px #fff);\n"
         "  .title { @extend %text; font-weight: 400 + (" + n + " % 5) * 100;\n"
         "    &::after { content: \"#" + n + " #{to-upper-case(nth($names, " + std::to_string(i % 8 + 1) +
         "))} #{str-slice('gmonlens-sass', 1, " + std::to_string(i % 13 + 1) + ")}\"; } }\n"
         "  > ul li:nth-child(2n+1) a { color: lighten($base, 20%); text-decoration: underline; }\n"
         "  @include bp(600px + " + std::to_string(i % 4) + " * 200px) { float: left; width: 50%; }\n"
         "  @each $k, $v in $sizes { &--#{$k} { margin: $v (-$v); min-width: $v * " + std::to_string(i % 5 + 1) +
         "; } }\n"
         "}\n";
    if (i % 7 == 0) s += ".warn" + n + " { @extend .c" + n + "; border-color: red; }\n";
    if (i % 5 == 0)
      s += ".sel" + n + " { x: selector-nest('.a" + n + "', '&:hover .b'); y: selector-append('.p', '.q" + n +
           "'); z: inspect(map-merge($sizes, (k" + n + ": " + n + "px))); }\n";
  }
  for (unsigned i = 0; i < blocks / 4; i++) {
    std::string n = std::to_string(i);
    s += "@for $j from 1 through 4 { .grid" + n + "-#{$j} { flex: 0 0 percentage($j / 4); "
         "order: $j * " + n + "; @extend .c" + std::to_string(i * 3 % blocks) + "; } }\n";
  }
  return s;
}

// a C function the stylesheet calls: double($n)
static union Sass_Value* double_fn(const union Sass_Value* args, Sass_Function_Entry, struct Sass_Compiler*) {
  const union Sass_Value* n = sass_list_get_value(args, 0);
  if (!sass_value_is_number(n)) return sass_make_error("double: not a number");
  return sass_make_number(2 * sass_number_get_value(n), sass_number_get_unit(n));
}

// an importer answering @import "theme"
static Sass_Import_List theme_importer(const char* path, Sass_Importer_Entry, struct Sass_Compiler*) {
  if (std::strcmp(path, "theme") != 0) return nullptr;
  const char* theme =
      "$theme-primary: #3b7dd8 !default;\n$theme-border: darken(#ccc, 5%);\n"
      "$theme-font: \"Helvetica Neue\", Arial, sans-serif;\n$theme-font-size: 14px;\n";
  Sass_Import_List list = sass_make_import_list(1);
  list[0] = sass_make_import_entry("theme.scss", strdup(theme), nullptr);
  return list;
}

static size_t compile(const std::string& src, Sass_Output_Style style, bool map) {
  struct Sass_Data_Context* data = sass_make_data_context(strdup(src.c_str()));
  struct Sass_Context* ctx = sass_data_context_get_context(data);
  struct Sass_Options* opt = sass_context_get_options(ctx);
  sass_option_set_output_style(opt, style);
  sass_option_set_precision(opt, 6);
  Sass_Function_List fns = sass_make_function_list(1);
  sass_function_set_list_entry(fns, 0, sass_make_function("double($n)", double_fn, nullptr));
  sass_option_set_c_functions(opt, fns);
  Sass_Importer_List imps = sass_make_importer_list(1);
  sass_importer_set_list_entry(imps, 0, sass_make_importer(theme_importer, 0, nullptr));
  sass_option_set_c_importers(opt, imps);
  if (map) {
    sass_option_set_input_path(opt, "workload.scss");
    sass_option_set_output_path(opt, "workload.css");
    sass_option_set_source_map_file(opt, "workload.css.map");
    sass_option_set_source_map_contents(opt, true);
  }
  sass_compile_data_context(data);
  if (sass_context_get_error_status(ctx) != 0) {
    std::fprintf(stderr, "libsass: %s\n", sass_context_get_error_message(ctx));
    std::exit(1);
  }
  size_t out = std::strlen(sass_context_get_output_string(ctx));
  if (map) out += std::strlen(sass_context_get_source_map_string(ctx));
  sass_delete_data_context(data);
  return out;
}

int main(int argc, char** argv) {
  unsigned scale = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 1;
  std::string src = stylesheet(150 * scale);
  size_t total = 0;
  const Sass_Output_Style styles[] = {SASS_STYLE_NESTED, SASS_STYLE_EXPANDED, SASS_STYLE_COMPACT,
                                      SASS_STYLE_COMPRESSED};
  for (int round = 0; round < 4; round++) total += compile(src, styles[round], round == 1);
  std::printf("libsass %s: %zu bytes of CSS and source map\n", libsass_version(), total);
  return 0;
}
