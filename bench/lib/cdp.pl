#!/usr/bin/perl
# Load each URL of the command line in a fresh headless chromium tab,
# driven over --remote-debugging-pipe (the DevTools protocol on fds 3
# and 4, messages ending in NUL), wait until the dashboard sets
# data-ready on <body>, and print one JSON line per URL: {"render",
# "page", "requests", "elements", "url"} as the page measured them.
use strict;
use warnings;
use JSON::PP;
use IO::Handle;
use POSIX qw(dup2 _exit);
use Time::HiRes qw(sleep time);

# pipes without close-on-exec: fds 3 and 4 must reach chromium
$^F = 255;
pipe(my $cmd_r, my $cmd_w) or die "pipe: $!";
pipe(my $res_r, my $res_w) or die "pipe: $!";
my $prof = "/tmp/cdp-profile.$$";
my $pid = fork() // die "fork: $!";
if (!$pid) {
	dup2(fileno($cmd_r), 3) or _exit(127);
	dup2(fileno($res_w), 4) or _exit(127);
	open(STDOUT, '>', '/dev/null');
	open(STDERR, '>', '/dev/null');
	{ exec('chromium', '--headless', '--no-sandbox', '--disable-gpu',
	     '--no-first-run', '--disable-background-networking',
	     '--disable-component-update', '--disable-sync',
	     "--user-data-dir=$prof", '--window-size=1280,900',
	     '--remote-debugging-pipe', 'about:blank') };
	_exit(127);
}
close($cmd_r);
close($res_w);
$cmd_w->autoflush(1);
my $json = JSON::PP->new->canonical;
my $id = 0;
my $buf = '';

sub send_cmd {
	my ($method, $params, $session) = @_;
	my %m = (id => ++$id, method => $method, params => $params // {});
	$m{sessionId} = $session if $session;
	print $cmd_w $json->encode(\%m), "\0";
	return $id;
}

sub reply_to {
	my ($want) = @_;
	my $deadline = time() + 60;
	while (time() < $deadline) {
		while ((my $i = index($buf, "\0")) >= 0) {
			my $msg = $json->decode(substr($buf, 0, $i));
			$buf = substr($buf, $i + 1);
			next unless defined $msg->{id} && $msg->{id} == $want;
			die "cdp: $msg->{error}{message}\n" if $msg->{error};
			return $msg->{result};
		}
		my $n = sysread($res_r, my $chunk, 1 << 20);
		die "cdp: chromium went away\n" unless $n;
		$buf .= $chunk;
	}
	die "cdp: no answer\n";
}

sub call { return reply_to(send_cmd(@_)); }

my $probe = <<'JS';
(() => {
	const b = document.body;
	if (!b || b.dataset.ready !== '1')
		return '';
	return JSON.stringify({ render: Number(b.dataset.renderMs),
		page: Number(b.dataset.pageMs), requests: Number(b.dataset.requests),
		elements: document.getElementsByTagName('*').length,
		url: location.href });
})()
JS

for my $url (@ARGV) {
	my $t = call('Target.createTarget', { url => 'about:blank' });
	my $s = call('Target.attachToTarget',
		     { targetId => $t->{targetId}, flatten => JSON::PP::true });
	my $sid = $s->{sessionId};
	call('Page.navigate', { url => $url }, $sid);
	my $got = '';
	my $deadline = time() + 60;
	while (!$got && time() < $deadline) {
		sleep(0.05);
		my $r = call('Runtime.evaluate',
			     { expression => $probe, returnByValue => JSON::PP::true },
			     $sid);
		$got = $r->{result}{value} // '';
	}
	die "cdp: $url never got ready\n" unless $got;
	print "$got\n";
	call('Target.closeTarget', { targetId => $t->{targetId} });
}
close($cmd_w);
waitpid($pid, 0);
system('rm', '-rf', $prof);
