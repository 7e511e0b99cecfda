# shellcheck shell=bash
# Sourced by the scripts that take files from Debian's archive without touching the machine's
# own apt configuration: the lists, the cache and the sources live in a folder of their own.
#
#   private_apt_init DIR LINE...   sources.list of DIR/etc holds the LINEs ("deb ... sid main",
#                                  "deb-src ... trixie main"); sets the array private_apt_options
#   apt-get "${private_apt_options[@]}" update | source ... | download ...

# The archive's key as Debian 12 ships it (debian-archive-keyring): it signs every suite.
private_apt_keyring=/usr/share/keyrings/debian-archive-keyring.gpg

private_apt_init() {
    local dir=$1
    shift
    mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/etc/sources.list.d"
    printf '%s\n' "$@" >"$dir/etc/sources.list"
    # Root runs apt's downloads as itself (no _apt user needed for a folder it owns); the lock
    # files of the machine's own apt are not taken.
    private_apt_options=(-o "Dir::Etc::SourceList=$dir/etc/sources.list"
        -o "Dir::Etc::SourceParts=$dir/etc/sources.list.d"
        -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" -o "Debug::NoLocking=1"
        -o "APT::Sandbox::User=root")
}

# "deb [signed-by=...] http://deb.debian.org/debian SUITE main" (TYPE deb or deb-src)
private_apt_line() {
    echo "$1 [signed-by=$private_apt_keyring] http://deb.debian.org/debian $2 main"
}
