# Homebrew formula: builds stubserver from source with Xcode's Swift. For a tap, copy this file
# to Formula/stubserver.rb in a repository named homebrew-stubserver, then
#   brew install OWNER/stubserver/stubserver
# On a release, bump `tag` to the new version's tag (docs/install.md).
class Stubserver < Formula
  desc "Mock HTTP server for iOS, Android and web client teams, with stubs in files"
  homepage "https://github.com/stubserver/stubserver"
  url "https://github.com/stubserver/stubserver.git", tag: "v0.2.0"
  license "Apache-2.0"
  head "https://github.com/stubserver/stubserver.git", branch: "main"

  depends_on xcode: ["16.0", :build]
  depends_on :macos

  def install
    system "swift", "build", "--disable-sandbox", "-c", "release", "--product", "stubserver"
    bin.install ".build/release/stubserver"
    pkgshare.install "stubs"
  end

  test do
    assert_match "stubserver #{version}", shell_output("#{bin}/stubserver --version")
    (testpath/"stubs/hello.json").write <<~JSON
      {"request": {"path": "/hello"}, "response": {"body": {"hello": "brew"}}}
    JSON
    assert_match "1 stub in 1 file, no errors", shell_output("#{bin}/stubserver validate --dir #{testpath}/stubs")
    (testpath/"broken/typo.json").write <<~JSON
      {"request": {"paht": "/hello"}, "response": {}}
    JSON
    assert_match "did you mean", shell_output("#{bin}/stubserver validate --dir #{testpath}/broken 2>&1", 1)
  end
end
