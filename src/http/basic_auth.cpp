#include "http/basic_auth.hpp"

#include "base/base64.hpp"
#include "http/syntax.hpp"

namespace callwire::http {
namespace {

bool is_control(unsigned char c) noexcept { return c < 0x20 || c == 0x7f; }

bool has_control(std::string_view s) noexcept {
  for (char c : s)
    if (is_control(static_cast<unsigned char>(c))) return true;
  return false;
}

bool is_base64_char(char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/' || c == '=';
}

Error invalid(const char* what) { return Error(Errc::InvalidArgument, what); }

}  // namespace

Status parse_basic_auth(std::string_view value, BasicCredentials& out) {
  value = syntax::trim_ows(value);
  constexpr std::string_view kScheme = "basic";
  if (value.size() < kScheme.size()) return invalid("not Basic authentication");
  for (size_t i = 0; i < kScheme.size(); ++i)
    if (syntax::lower(value[i]) != kScheme[i]) return invalid("not Basic authentication");
  value.remove_prefix(kScheme.size());
  if (!value.empty() && value[0] != ' ') return invalid("not Basic authentication");  // "Basicx"
  size_t spaces = 0;
  while (spaces < value.size() && value[spaces] == ' ') ++spaces;
  value.remove_prefix(spaces);
  if (value.empty()) return invalid("no credentials after Basic");
  // Our base64 decoder skips white space (for XML); a token68 has none.
  for (char c : value)
    if (!is_base64_char(c)) return invalid("credentials are not valid base64");

  std::string& text = out.user;  // decode into user's storage, then split
  text.resize(base64::max_decoded_size(value.size()));
  size_t error_at = 0;
  long n = base64::decode(value, reinterpret_cast<unsigned char*>(text.data()), error_at);
  if (n < 0) return invalid("credentials are not valid base64");
  text.resize(size_t(n));
  size_t colon = text.find(':');
  if (colon == std::string::npos) return invalid("no ':' between user and password");
  if (has_control(text)) return invalid("control character in the credentials");
  out.password.assign(text, colon + 1);
  text.resize(colon);
  return {};
}

Result<std::string> make_basic_auth(std::string_view user, std::string_view password) {
  if (user.find(':') != std::string_view::npos) return invalid("':' in the user name");
  if (has_control(user) || has_control(password))
    return invalid("control character in the credentials");
  std::string plain;
  plain.reserve(user.size() + 1 + password.size());
  plain.append(user).append(1, ':').append(password);
  std::string value = "Basic ";
  const size_t at = value.size();
  value.resize(at + base64::encoded_size(plain.size()));
  base64::encode(reinterpret_cast<const unsigned char*>(plain.data()), plain.size(),
                 value.data() + at);
  return value;
}

Result<std::string> make_basic_challenge(std::string_view realm) {
  if (has_control(realm)) return invalid("control character in the realm");
  std::string value = "Basic realm=\"";
  for (char c : realm) {
    if (c == '"' || c == '\\') value.push_back('\\');
    value.push_back(c);
  }
  value += "\", charset=\"UTF-8\"";
  return value;
}

}  // namespace callwire::http
